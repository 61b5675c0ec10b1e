package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} again and again in the middle of concurrent admissions on a grown state (contract sections 11 and 13):
 * after every restart on the same state each receipt that was ever answered with a 2xx is served byte for byte, no
 * {@code seq} was answered twice with different receipts, no session went back, and each session's chain links.
 *
 * <p>CI grows the state to {@value #CI_RECEIPTS} receipts and kills {@value #CI_KILLS} times. The long run of issue
 * 11 (200,000 receipts, 20 kills) is the same test with {@code -Dcrashloop.receipts=200000 -Dcrashloop.kills=20};
 * {@code docs/benchmarks.md} records it.
 */
class CrashRecoveryIT {
    /**
     * The pricing desk, with grants that outlive the run: the docs' example grants 300 s, and a long run's growth takes
     * longer, after which every call was refused and the run failed on its harness instead of on the ledger.
     */
    private static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 86400}
            """;
    /** Fewer sessions than threads, so that calls on one session race each other. */
    private static final int SESSIONS = 8;
    private static final int THREADS = 16;
    private static final int CI_RECEIPTS = 20_000;
    private static final int CI_KILLS = 5;
    private static final int GROW_TO = Integer.getInteger("crashloop.receipts", CI_RECEIPTS);
    private static final int KILLS = Integer.getInteger("crashloop.kills", CI_KILLS);
    /** A kill comes at a random moment within this much load after the restart. */
    private static final Duration LONGEST_LOAD = Duration.ofSeconds(4);
    private static final String ARGUMENTS_SHA256 = Sha256.hexOfUtf8("{\"sku\":\"A-1\",\"qty\":3}");
    private static final long SEED = Long.getLong("crashloop.seed", System.nanoTime());

    @TempDir
    Path work;

    private final Random random = new Random(SEED);
    private final AtomicLong requestIds = new AtomicLong();

    /** The edge credential of the ledger under test. */
    private String edge;
    /** The auditor credential: it reads every client's receipts. */
    private String auditor;

    /** A session and the SHA-256 of its client's token, as an edge keeps them. */
    private record Client(String session, String token) {
    }

    @Test
    void everyAcknowledgedReceiptSurvivesRepeatedKillNineInTheMiddleOfConcurrentCalls() throws Exception {
        Files.writeString(work.resolve("policy.yaml"), POLICY);
        Queue<Receipt> acknowledged = new ConcurrentLinkedQueue<>();
        List<Client> clients;
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--policy", "policy.yaml")) {
            edge = LedgerProcess.token(work, "edge");
            auditor = LedgerProcess.token(work, "auditor");
            clients = initialize(ledger, acknowledged);
            // Growing the state ends in the first kill, once the state holds enough receipts.
            callConcurrentlyThenKill(ledger, clients, acknowledged, GROW_TO, Duration.ofHours(1));
        }
        for (int kill = 1; kill <= KILLS; kill++) {
            try (LedgerProcess restarted = LedgerProcess.serve(work, "--policy", "policy.yaml")) {
                assertRecovered(restarted, clients, acknowledged, kill);
                if (kill == KILLS) {
                    assertThat(restarted.terminate()).isEqualTo(ServeIT.SIGTERM_EXIT);
                } else {
                    long loadMs = 200 + random.nextInt((int) LONGEST_LOAD.toMillis() - 200);
                    callConcurrentlyThenKill(restarted, clients, acknowledged, Integer.MAX_VALUE,
                            Duration.ofMillis(loadMs));
                }
            }
        }
    }

    /** After restart number {@code kill}: every acknowledged receipt served as it was, every chain kept. */
    private void assertRecovered(LedgerProcess restarted, List<Client> clients, Queue<Receipt> acknowledged, int kill)
            throws Exception {
        Map<String, TreeMap<Long, Receipt>> chains = chains(acknowledged, kill);
        assertServedAsAcknowledged(restarted, acknowledged, kill);
        for (Client client : clients) {
            acknowledged.add(assertSessionKeptItsChain(restarted, client, chains.get(client.session())));
            acknowledged.add(resume(restarted, client, kill));
        }
    }

    /** The edge restarted too: it resumes with a new incarnation, which also renews the capability's grants. */
    private Receipt resume(LedgerProcess restarted, Client client, int kill) throws Exception {
        ObjectNode body = Canonical.JSON.createObjectNode();
        ObjectNode edgeNode = body.putObject("edge");
        edgeNode.put("id", "edge-1");
        edgeNode.put("incarnation", "i" + (kill + 1));
        HttpResponse<String> resumed = restarted.post("/v1/sessions/" + client.session() + "/resume", edge,
                client.token(), body.toString());
        assertThat(resumed.statusCode()).as("resume %s: %s", client.session(), resumed.body()).isEqualTo(200);
        return receipt(Canonical.parse(resumed.body()));
    }

    private List<Client> initialize(LedgerProcess ledger, Queue<Receipt> acknowledged) throws Exception {
        List<Client> clients = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            String clientToken = Sha256.hexOfUtf8("crash-client-" + s);
            HttpResponse<String> created = ledger.post("/v1/sessions", edge, clientToken, initializeBody());
            assertThat(created.statusCode()).as("initialize: %s", created.body()).isEqualTo(201);
            JsonNode answer = Canonical.parse(created.body());
            clients.add(new Client(answer.path("session").path("id").asText(), clientToken));
            acknowledged.add(receipt(answer));
        }
        return clients;
    }

    /**
     * {@value #THREADS} threads call round robin over the sessions and keep every admitted receipt; after {@code
     * admissions} admissions or {@code longest} (whichever comes first) the ledger is killed while they call.
     */
    private void callConcurrentlyThenKill(LedgerProcess ledger, List<Client> clients, Queue<Receipt> acknowledged,
                                          int admissions, Duration longest) throws Exception {
        Queue<String> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean killed = new AtomicBoolean();
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(1);
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            callers.add(new Thread(() -> {
                for (int i = 0; !killed.get(); i++) {
                    Client client = clients.get((thread + i) % clients.size());
                    HttpResponse<String> answer;
                    try {
                        answer = ledger.post("/v1/sessions/" + client.session() + "/calls", edge, client.token(),
                                callBody("req-" + requestIds.incrementAndGet()));
                    } catch (IOException | InterruptedException e) {
                        // The ledger died with this request in flight: it was never acknowledged.
                        return;
                    }
                    try {
                        JsonNode body = Canonical.parse(answer.body());
                        if (answer.statusCode() != 200 || !"admitted".equals(body.path("decision").asText())) {
                            unexpected.add(answer.statusCode() + " " + answer.body());
                            continue;
                        }
                        acknowledged.add(receipt(body));
                    } catch (Exception | AssertionError e) {
                        unexpected.add(answer.statusCode() + " " + answer.body() + ": " + e);
                        continue;
                    }
                    if (admitted.incrementAndGet() == admissions) {
                        enough.countDown();
                    }
                }
            }, "caller-" + t));
        }
        callers.forEach(Thread::start);
        enough.await(longest.toMillis(), TimeUnit.MILLISECONDS);
        ledger.kill();
        killed.set(true);
        for (Thread caller : callers) {
            caller.join(15_000);
        }
        assertThat(unexpected).as("answers other than an admission before the kill").isEmpty();
        assertThat(admitted.get()).as("calls admitted before the kill").isGreaterThan(0);
    }

    /** {@code GET /v1/receipts/{id}} serves every acknowledged receipt with the same JCS bytes. */
    private void assertServedAsAcknowledged(LedgerProcess restarted, Collection<Receipt> acknowledged, int kill)
            throws Exception {
        Queue<String> lost = new ConcurrentLinkedQueue<>();
        inParallel(acknowledged, receipt -> {
            HttpResponse<String> answer = restarted.get("/v1/receipts/" + receipt.id(), auditor, null);
            if (answer.statusCode() != 200) {
                lost.add(receipt.id() + ": " + answer.statusCode() + " " + answer.body());
            } else if (!Canonical.jcs(Canonical.parse(answer.body()).get("receipt")).equals(receipt.line())) {
                lost.add(receipt.id() + ": served " + answer.body() + " but acknowledged " + receipt.line());
            }
        });
        assertThat(lost).as("acknowledged receipts not served as acknowledged after kill %d (seed %d)", kill, SEED)
                .isEmpty();
    }

    /**
     * The session is at least as far as its last acknowledged receipt, and its next receipt links to its head; returns
     * that next receipt, acknowledged too.
     */
    private Receipt assertSessionKeptItsChain(LedgerProcess restarted, Client client, TreeMap<Long, Receipt> chain)
            throws Exception {
        String id = client.session();
        HttpResponse<String> answer = restarted.get("/v1/sessions/" + id, edge, client.token());
        assertThat(answer.statusCode()).as("GET session %s: %s", id, answer.body()).isEqualTo(200);
        JsonNode session = Canonical.parse(answer.body());
        long seq = session.path("seq").asLong();
        String head = session.path("head").asText();
        assertThat(seq).as("seq of %s after the restart", id).isGreaterThanOrEqualTo(chain.lastKey());
        if (seq == chain.lastKey()) {
            assertThat(head).as("head of %s", id).isEqualTo(chain.lastEntry().getValue().hash());
        }

        HttpResponse<String> next = restarted.post("/v1/sessions/" + id + "/calls", edge, client.token(),
                callBody("after-restart-" + requestIds.incrementAndGet()));
        assertThat(next.statusCode()).as("a call on %s after the restart: %s", id, next.body()).isEqualTo(200);
        Receipt continued = receipt(Canonical.parse(next.body()));
        assertThat(continued.seq()).as("seq of the first receipt of %s after the restart", id).isEqualTo(seq + 1);
        assertThat(continued.prev()).as("prev of the first receipt of %s after the restart", id).isEqualTo(head);
        return continued;
    }

    /** Acknowledged receipts by session and seq; no two different receipts share a seq, and known neighbours link. */
    private static Map<String, TreeMap<Long, Receipt>> chains(Collection<Receipt> acknowledged, int kill) {
        Map<String, TreeMap<Long, Receipt>> chains = new TreeMap<>();
        List<String> broken = new ArrayList<>();
        for (Receipt receipt : acknowledged) {
            Receipt other = chains.computeIfAbsent(receipt.session(), s -> new TreeMap<>()).put(receipt.seq(), receipt);
            if (other != null && !other.equals(receipt)) {
                broken.add("seq " + receipt.seq() + " of " + receipt.session() + " answered twice: " + other.id()
                        + " and " + receipt.id());
            }
        }
        for (TreeMap<Long, Receipt> chain : chains.values()) {
            for (Map.Entry<Long, Receipt> entry : chain.entrySet()) {
                Receipt next = chain.get(entry.getKey() + 1);
                if (next != null && !entry.getValue().hash().equals(next.prev())) {
                    broken.add("prev of " + next.id() + " (seq " + next.seq() + ") is " + next.prev()
                            + ", the hash of seq " + entry.getKey() + " is " + entry.getValue().hash());
                }
            }
        }
        assertThat(broken).as("acknowledged receipt chains after kill %d (seed %d)", kill, SEED).isEmpty();
        return chains;
    }

    @FunctionalInterface
    private interface Check {
        void run(Receipt receipt) throws Exception;
    }

    /** Runs {@code check} on every receipt from {@value #THREADS} threads: thousands of GETs, one at a time, are slow. */
    private static void inParallel(Collection<Receipt> receipts, Check check) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Receipt receipt : receipts) {
                done.add(pool.submit(() -> {
                    check.run(receipt);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Receipt receipt(JsonNode answer) throws Exception {
        JsonNode receipt = answer.get("receipt");
        assertThat(receipt).as("receipt in %s", answer).isNotNull();
        return Receipt.parse(Canonical.jcs(receipt));
    }

    private static String initializeBody() {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", "alice");
        body.put("serverId", "pricing");
        body.put("protocolVersion", "2025-06-18");
        ObjectNode edge = body.putObject("edge");
        edge.put("id", "edge-1");
        edge.put("incarnation", "i1");
        return body.toString();
    }

    private static String callBody(String requestId) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("requestId", requestId);
        body.put("server", "pricing");
        body.put("tool", "quote");
        body.put("operation", "invoke");
        body.put("argumentsSha256", ARGUMENTS_SHA256);
        return body.toString();
    }
}
