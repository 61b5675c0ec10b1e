package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Canonical;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three ledger processes (the real jar) on one real PostgreSQL server, each on a copy of one state directory. An
 * edge-like client spreads sessions' requests round robin over the nodes from several threads; one node is killed
 * with {@code kill -9} in the middle of the load (whichever node was integrating at that moment loses the
 * integration it was doing) and started again. Then: every acknowledged receipt is served by every node byte for byte,
 * every session's chain links, every node serves the same checkpoint, every checkpoint seen is consistent with the
 * last and none differs from another of its size, the export made while the nodes run verifies with
 * {@code ledger-verify}, and its replay's digest is every node's {@code GET /v1/projections/digest}. A revocation, a
 * policy and a DELETE answered by one node are obeyed by the next request on the others.
 */
class SeveralNodesIT {
    private static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 86400}
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 86400}
            """;
    private static final String DISCOUNT_ONLY = """
            {"capabilities":{"default":{"tools":[{"server":"pricing","tool":"discount","operations":["invoke"],"ttl":86400}]}}}""";
    private static final int SESSIONS = 6;
    private static final int THREADS = 9;
    private static final Duration LOAD = Duration.ofSeconds(3);

    @TempDir
    Path work;
    private final LedgerProcess[] nodes = new LedgerProcess[3];
    private final Path[] dirs = new Path[3];
    private DatabaseUrl database;
    private String edge;
    private String operator;
    private String auditor;
    /** Every acknowledged receipt: its id and its line as first answered. */
    private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    /** Every checkpoint note any node served, by size. */
    private final Map<Long, String> checkpoints = new ConcurrentHashMap<>();
    private final AtomicBoolean forkedCheckpoint = new AtomicBoolean();
    private final AtomicLong next = new AtomicLong();

    private record Client(String session, String token) {
    }

    @AfterEach
    void stop() {
        for (LedgerProcess node : nodes) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    void threeNodesAnswerAsOneLedgerThroughAKillNineAndARestart() throws Exception {
        database = TestDatabases.newPostgresDatabase();
        dirs[0] = Files.createDirectories(work.resolve("node-0"));
        LedgerProcess.run(dirs[0], "init").waitFor();
        Files.writeString(dirs[0].resolve("policy.yaml"), POLICY);
        for (int i = 1; i < 3; i++) {
            dirs[i] = work.resolve("node-" + i);
            TestIo.copyTree(dirs[0], dirs[i]);
        }
        edge = LedgerProcess.token(dirs[0], "edge");
        operator = LedgerProcess.token(dirs[0], "operator");
        auditor = LedgerProcess.token(dirs[0], "auditor");
        for (int i = 0; i < 3; i++) {
            nodes[i] = start(i);
        }

        List<Client> clients = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            String token = Sha256.hexOfUtf8("client of session " + s);
            JsonNode answer = json(request("POST", "/v1/sessions", edge, token, """
                    {"principal":"p%d","serverId":"pricing","protocolVersion":"2025-06-18"}""".formatted(s), 201));
            acknowledge(answer.path("receipt"));
            clients.add(new Client(answer.path("session").path("id").asText(), token));
        }

        runLoad(clients, () -> {
            Thread.sleep(LOAD.toMillis() / 2);
            nodes[1].kill();
            Thread.sleep(LOAD.toMillis() / 2);
            nodes[1] = start(1);
            Thread.sleep(LOAD.toMillis() / 2);
            return null;
        });

        // What one node answered is obeyed by the next request on the others.
        Client alice = clients.get(0);
        Client bob = clients.get(1);
        Client carol = clients.get(2);
        request(0, "POST", "/v1/principals/revoke", operator, null,
                "{\"tokenSha256\":\"" + alice.token() + "\"}", 200);
        assertThat(call(2, alice, "after-revocation", "quote").body()).contains("revoked");
        request(1, "PUT", "/v1/policy", operator, null, DISCOUNT_ONLY, 200);
        assertThat(json(call(0, bob, "after-policy", "quote")).path("decision").asText()).isEqualTo("refused");
        assertThat(json(call(2, bob, "discount-after-policy", "discount")).path("decision").asText())
                .isEqualTo("admitted");
        request(2, "DELETE", "/v1/sessions/" + carol.session(), edge, carol.token(), null, 200);
        assertThat(call(1, carol, "after-delete", "discount").statusCode()).isIn(404, 410);
        assertThat(call(0, carol, "after-delete-2", "discount").statusCode()).isIn(404, 410);

        // Every node serves the same, complete checkpoint once the receipts are integrated (one interval, 1 s).
        long size = waitForEqualCheckpoints();
        assertThat(forkedCheckpoint).as("two checkpoints of one size differ").isFalse();
        assertThat(size).isGreaterThanOrEqualTo(acknowledged.size());
        verifyConsistency(size);
        for (Map.Entry<String, String> receipt : acknowledged.entrySet()) {
            for (int i = 0; i < 3; i++) {
                JsonNode served = json(request(i, "GET", "/v1/receipts/" + receipt.getKey(), auditor, null, null, 200));
                assertThat(Canonical.jcs(served.path("receipt"))).isEqualTo(receipt.getValue());
            }
        }
        for (Client client : clients) {
            JsonNode state = json(request(0, "GET", "/v1/sessions/" + client.session(), auditor, null, null, 200));
            for (int i = 1; i < 3; i++) {
                JsonNode other = json(request(i, "GET", "/v1/sessions/" + client.session(), auditor, null, null, 200));
                assertThat(other.path("seq")).isEqualTo(state.path("seq"));
                assertThat(other.path("head")).isEqualTo(state.path("head"));
            }
        }

        // A node of another log (a state directory of its own) refuses the database: exit 2, one line, nothing changed.
        Path stranger = Files.createDirectories(work.resolve("stranger"));
        Process refused = LedgerProcess.run(stranger, "serve", "--listen", "127.0.0.1:0", "--database",
                database.withoutCredentials());
        String said = LedgerProcess.read(refused.getErrorStream()).strip();
        assertThat(refused.exitValue()).as(said).isEqualTo(2);
        assertThat(said.lines().filter(l -> l.startsWith("ledger-app serve: "))).singleElement().asString()
                .contains("the database holds the log of origin");
        assertThat(json(request(0, "GET", "/health", null, null, null, 200)).path("receipts").asLong())
                .isEqualTo(size);

        // The database's password is in no line a node printed and in no health answer.
        for (int i = 0; i < 3; i++) {
            assertThat(String.join("\n", nodes[i].stdout) + String.join("\n", nodes[i].stderr)
                    + request(i, "GET", "/health", null, null, null, 200).body()).doesNotContain(PASSWORD);
            assertThat(nodes[i].stdout.stream().filter(l -> l.startsWith("Ready: "))).singleElement().asString()
                    .contains(database.withoutCredentials());
        }

        // The export, made while the nodes run, verifies; its replay is every node's digest.
        Path bundle = work.resolve("bundle");
        Process export = LedgerProcess.run(dirs[0], "export", "--out", bundle.toString(), "--database",
                database.withoutCredentials());
        assertThat(export.exitValue()).as(LedgerProcess.read(export.getErrorStream())).isZero();
        Path key = dirs[0].resolve("state/ledger/public-key.pem");
        VerifyIT.Result log = VerifyIT.verify("log", bundle, "--key", key);
        assertThat(log.exit()).as(log.out() + log.err()).isZero();
        JsonNode replay = Canonical.parse(VerifyIT.verify("replay", bundle, "--json", "--key", key).out());
        for (int i = 0; i < 3; i++) {
            JsonNode digest = json(request(i, "GET", "/v1/projections/digest", auditor, null, null, 200));
            assertThat(digest.path("treeSize").asLong()).isEqualTo(replay.path("treeSize").asLong());
            assertThat(digest.path("digest").asText()).isEqualTo(replay.path("digest").asText());
        }
    }

    /**
     * A password the test server (trust authentication) ignores: given in the URL as an operator would, it must never
     * show in anything a node prints or answers.
     */
    private static final String PASSWORD = "never-printed-4f1c";

    private LedgerProcess start(int i) throws Exception {
        return LedgerProcess.serve(dirs[i], "--database", database.withoutCredentials() + "&password=" + PASSWORD,
                "--policy", "policy.yaml", "--checkpoint-interval", "1s");
    }

    /** Calls from every thread, each to the next node round robin, while {@code during} runs; then stops. */
    private void runLoad(List<Client> clients, java.util.concurrent.Callable<Void> during) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        List<Future<?>> load = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Client client = clients.get(t % clients.size());
            load.add(pool.submit(() -> {
                while (running.get()) {
                    String requestId = "load-" + next.incrementAndGet();
                    // An edge that gets no answer sends the same requestId to the next node.
                    for (int attempt = 0; attempt < 6; attempt++) {
                        int node = (int) Math.floorMod(next.incrementAndGet(), 3L);
                        try {
                            HttpResponse<String> reply = call(node, client, requestId, "quote");
                            if (reply.statusCode() == 200) {
                                acknowledge(json(reply).path("receipt"));
                                admitted.incrementAndGet();
                                break;
                            }
                        } catch (java.io.IOException e) {
                            // The node is down: the next one.
                        }
                    }
                }
                return null;
            }));
        }
        Future<?> watcher = pool.submit(() -> {
            while (running.get()) {
                for (int i = 0; i < 3; i++) {
                    try {
                        seeCheckpoint(i);
                    } catch (java.io.IOException | RuntimeException e) {
                        // Down or restarting.
                    }
                }
                Thread.sleep(200);
            }
            return null;
        });
        try {
            during.call();
        } finally {
            running.set(false);
            for (Future<?> f : load) {
                f.get(60, TimeUnit.SECONDS);
            }
            watcher.get(60, TimeUnit.SECONDS);
            pool.shutdownNow();
        }
        assertThat(admitted.get()).as("calls admitted under load").isGreaterThan(50);
        System.out.printf("SeveralNodesIT: %d calls admitted under load over three nodes, one killed and restarted;"
                + " %d checkpoints seen%n", admitted.get(), checkpoints.size());
    }

    private long waitForEqualCheckpoints() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            long[] sizes = new long[3];
            for (int i = 0; i < 3; i++) {
                sizes[i] = seeCheckpoint(i).size();
            }
            JsonNode health = json(request(0, "GET", "/health", null, null, null, 200));
            if (sizes[0] == sizes[1] && sizes[1] == sizes[2] && sizes[0] == health.path("receipts").asLong()) {
                return sizes[0];
            }
            assertThat(System.nanoTime()).as("all nodes serve one checkpoint of every receipt").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** A node's checkpoint, opened with the log's key and remembered; one of a size seen before must be the same. */
    private Checkpoint seeCheckpoint(int node) throws Exception {
        String vkey = json(request(node, "GET", "/v1/log/public-key", null, null, null, 200)).path("vkey").asText();
        String note = request(node, "GET", "/v1/log/checkpoint", auditor, null, null, 200).body();
        Checkpoint checkpoint = Checkpoint.open(note, VerifierKey.parse(vkey));
        String before = checkpoints.putIfAbsent(checkpoint.size(), note);
        if (before != null && !before.equals(note)) {
            forkedCheckpoint.set(true);
        }
        return checkpoint;
    }

    /** Every checkpoint seen is consistent with the last, by a proof from a node other than the one it came from. */
    private void verifyConsistency(long last) throws Exception {
        String vkey = json(request(0, "GET", "/v1/log/public-key", null, null, null, 200)).path("vkey").asText();
        Checkpoint newest = Checkpoint.open(checkpoints.get(last), VerifierKey.parse(vkey));
        int asked = 0;
        for (Map.Entry<Long, String> seen : new TreeMap<>(checkpoints).entrySet()) {
            Checkpoint older = Checkpoint.open(seen.getValue(), VerifierKey.parse(vkey));
            if (older.size() == 0 || older.size() > last) {
                continue;
            }
            JsonNode proof = json(request(asked++ % 3, "GET", "/v1/log/proof/consistency?from=" + older.size()
                    + "&to=" + last, auditor, null, null, 200));
            List<byte[]> hashes = new ArrayList<>();
            proof.path("hashes").forEach(h -> hashes.add(Base64.getDecoder().decode(h.asText())));
            Merkle.verifyConsistency(older.size(), last, hashes, older.root(), newest.root());
        }
        assertThat(asked).as("checkpoints seen during the run").isGreaterThan(2);
    }

    private HttpResponse<String> call(int node, Client client, String requestId, String tool) throws Exception {
        return nodes[node].send("POST", "/v1/sessions/" + client.session() + "/calls", edge, client.token(), """
                {"requestId":"%s","server":"pricing","tool":"%s","operation":"invoke","argumentsSha256":"%s"}"""
                .formatted(requestId, tool, Sha256.hexOfUtf8(requestId)));
    }

    private HttpResponse<String> request(String method, String path, String bearer, String client, String body,
            int status) throws Exception {
        return request((int) Math.floorMod(next.incrementAndGet(), 3L), method, path, bearer, client, body, status);
    }

    private HttpResponse<String> request(int node, String method, String path, String bearer, String client,
            String body, int status) throws Exception {
        HttpResponse<String> reply = nodes[node].send(method, path, bearer, client, body);
        assertThat(reply.statusCode()).as(method + " " + path + " on node " + node + ": " + reply.body())
                .isEqualTo(status);
        return reply;
    }

    private void acknowledge(JsonNode receipt) throws Exception {
        acknowledged.put(receipt.path("id").asText(), Canonical.jcs(receipt));
    }

    private static JsonNode json(HttpResponse<String> reply) throws Exception {
        return Canonical.parse(reply.body());
    }
}
