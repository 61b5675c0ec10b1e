package io.mcpledger.app.bench;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.SessionIds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The transparency log's three figures (docs/benchmarks.md): the time from an acknowledged receipt to its proof being
 * served, proof latency at a large size, and bytes stored per receipt including the tree. A plain {@code main}.
 *
 * <ol>
 *   <li>Build: {@code --entries=N} receipts (default 1,000,000) through {@code LedgerEngine.commands()}, 64 callers on
 *       1,000 sessions, the sequencer running as in production (every half of {@code --checkpoint-interval}, default
 *       1s). One answer in 100 is sampled: the time from its answer until a checkpoint covers its index.</li>
 *   <li>HTTP: the ledger restarted on that state (a replay), then (a) {@code --probes=N} admissions at 50/s, each
 *       followed by polling {@code GET /v1/receipts/{id}/proof} every 10 ms until it is 200, and (b)
 *       {@code --samples=N} proofs of random entries: {@code GET /v1/receipts/{id}/proof} (each receipt asked
 *       once to warm up, then timed in another order) and {@code GET /v1/log/proof/consistency} between random
 *       sizes, one client (the hand-written HTTP/1.1 client of {@link HttpLoadGenerator}).</li>
 *   <li>Storage: the H2 file after the ledger stopped, and after {@code SHUTDOWN COMPACT}, per receipt; the tree's own
 *       share from its tables.</li>
 * </ol>
 * Also prints the machine's raw limit measured in the same run: Bouncy Castle Ed25519 signatures per second.
 * {@code --keep=DIR} keeps (and reuses, when it holds a ledger) the state directory.
 */
public final class LogBenchmark {
    private static final int SESSIONS = 1_000;
    private static final int CALLERS = 64;
    private static final int SAMPLE_EVERY = 100;
    private static final String ARGS_SHA256 = Sha256.hexOfUtf8("{\"sku\":\"A-1\"}");

    public static void main(String[] args) throws Exception {
        long entries = 1_000_000;
        int probes = 200;
        int samples = 2_000;
        Duration interval = Duration.ofSeconds(1);
        Path keep = null;
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "--entries" -> entries = Long.parseLong(kv[1].replace("_", ""));
                case "--probes" -> probes = Integer.parseInt(kv[1]);
                case "--samples" -> samples = Integer.parseInt(kv[1]);
                case "--checkpoint-interval" -> interval = Duration.ofMillis(Long.parseLong(kv[1].replace("ms", "")));
                case "--keep" -> keep = Path.of(kv[1]);
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        System.out.printf(Locale.ROOT, "java %s, %d processors, max heap %d MiB, load %s%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, Files.readString(Path.of("/proc/loadavg")).strip());
        rawSigning();
        Path dir = keep != null ? keep.toAbsolutePath() : Files.createTempDirectory("log-bench");
        try {
            StateDirectory directory = new StateDirectory(dir);
            directory.init(null);
            LoadedState state = directory.load(null);
            LedgerSettings settings = new LedgerSettings(dir, null, HostPort.parse("127.0.0.1:0"),
                    PolicyFiles.parse(AdmissionBenchmark.POLICY), Duration.ofDays(1), 100_000, interval);
            build(state, settings, entries);
            overHttp(directory, state, settings, probes, samples);
            storage(dir);
        } finally {
            if (keep == null) {
                TestIo.deleteTree(dir);
            }
        }
    }

    private static void rawSigning() {
        SigningKey key = SigningKey.generate(new SecureRandom());
        byte[] message = new byte[700];
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        long n = 0;
        byte sink = 0;
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            sink ^= key.sign(message)[0];
            n++;
        }
        System.out.printf(Locale.ROOT, "raw limit: Bouncy Castle Ed25519 %,.0f signatures/s on one thread (%d)%n",
                n / ((System.nanoTime() - start) / 1e9), sink & 1);
    }

    // ---------------------------------------------------------------- 1. build

    private static void build(LoadedState state, LedgerSettings settings, long entries) throws Exception {
        try (LedgerEngine engine = LedgerEngine.start(state, settings, Clock.systemUTC())) {
            long have = engine.projector().position();
            if (have >= entries) {
                System.out.printf(Locale.ROOT, "%n== 1. build: the state already holds %,d entries%n", have);
                return;
            }
            System.out.printf(Locale.ROOT, "%n== 1. build: %,d receipts, %d callers on %d sessions, sequencer every %d ms%n",
                    entries - have, CALLERS, SESSIONS, settings.checkpointInterval().toMillis() / 2);
            String[] sessions = new String[SESSIONS];
            String[] tokens = new String[SESSIONS];
            for (int i = 0; i < SESSIONS; i++) {
                tokens[i] = Sha256.hexOfUtf8("log-bench-client-" + i + "-" + have);
                sessions[i] = SessionIds.issue(tokens[i], RandomIds.sessionRandom());
                engine.commands().sendAndWait(new InitializeSession(sessions[i], tokens[i], "alice", "pricing",
                        "2025-06-18", null, new Edge("edge-bench", "1"), engine.now()));
            }
            AtomicLong requests = new AtomicLong(have);
            ConcurrentLinkedQueue<long[]> sampled = new ConcurrentLinkedQueue<>();
            List<Long> latencies = new ArrayList<>();
            Thread watcher = new Thread(() -> watch(engine, sampled, latencies), "integration-watcher");
            watcher.setDaemon(true);
            watcher.start();
            long start = System.nanoTime();
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < CALLERS; t++) {
                callers.add(new Thread(() -> {
                    for (long n; (n = requests.incrementAndGet()) <= entries; ) {
                        int s = (int) (n % SESSIONS);
                        Object answer = engine.commands().sendAndWait(new RequestCall(sessions[s], tokens[s], "req-" + n,
                                "pricing", "quote", "invoke", ARGS_SHA256, null, engine.now()));
                        long acked = System.nanoTime();
                        if (!(answer instanceof CallAnswer call) || !call.admitted()) {
                            throw new IllegalStateException("not admitted: " + answer);
                        }
                        if (n % SAMPLE_EVERY == 0) {
                            long index = engine.receipt(call.receipt().id()).position();
                            sampled.add(new long[] {index, acked});
                        }
                    }
                }, "caller-" + t));
            }
            callers.forEach(Thread::start);
            long lastReport = start;
            while (callers.stream().anyMatch(Thread::isAlive)) {
                Thread.sleep(1_000);
                if (System.nanoTime() - lastReport > Duration.ofSeconds(30).toNanos()) {
                    lastReport = System.nanoTime();
                    System.out.printf(Locale.ROOT, "  %,d committed, %,d integrated, %.0f s%n",
                            engine.projector().position(), engine.log().latest().size(), (lastReport - start) / 1e9);
                }
            }
            for (Thread caller : callers) {
                caller.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            while (!sampled.isEmpty()) {
                Thread.sleep(10);
            }
            watcher.interrupt();
            watcher.join();
            long committed = engine.projector().position();
            System.out.printf(Locale.ROOT, "built: %,d entries in %.0f s (%,.0f receipts/s)%n", committed, seconds,
                    (committed - have - SESSIONS) / seconds);
            synchronized (latencies) {
                print("ack -> integrated (in-process, sampled 1 in " + SAMPLE_EVERY + ")", latencies);
            }
        }
    }

    private static void watch(LedgerEngine engine, ConcurrentLinkedQueue<long[]> sampled, List<Long> latencies) {
        List<long[]> waiting = new ArrayList<>();
        while (!Thread.currentThread().isInterrupted()) {
            for (long[] s; (s = sampled.poll()) != null; ) {
                waiting.add(s);
            }
            long size = engine.log().latest().size();
            long now = System.nanoTime();
            waiting.removeIf(s -> {
                if (s[0] < size) {
                    synchronized (latencies) {
                        latencies.add(now - s[1]);
                    }
                    return true;
                }
                return false;
            });
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- 2. over HTTP

    private static void overHttp(StateDirectory directory, LoadedState state, LedgerSettings settings, int probes,
                                 int samples) throws Exception {
        String edge = Files.readString(directory.tokenFile(Role.EDGE)).strip();
        String auditor = Files.readString(directory.tokenFile(Role.AUDITOR)).strip();
        long t0 = System.nanoTime();
        try (LedgerServer server = LedgerServer.start(state, settings, Clock.systemUTC())) {
            long size = server.engine().projector().position();
            System.out.printf(Locale.ROOT, "%n== 2. HTTP on the restarted ledger: replayed %,d entries in %.1f s, heap"
                    + " used %,d MiB%n", size, (System.nanoTime() - t0) / 1e9, usedHeapMiB());
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI base = URI.create("http://127.0.0.1:" + server.port());

            String token = Sha256.hexOfUtf8("log-bench-probe");
            String created = send(http, base, "POST", "/v1/sessions", edge, token,
                    "{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}", 201);
            String session = Canonical.parse(created).path("session").path("id").asText();
            List<Long> ackToProof = new ArrayList<>();
            long next = System.nanoTime();
            for (int i = 0; i < probes; i++) {
                next += Duration.ofMillis(20).toNanos();
                while (System.nanoTime() < next) {
                    Thread.sleep(1);
                }
                String answer = send(http, base, "POST", "/v1/sessions/" + session + "/calls", edge, token,
                        "{\"requestId\":\"probe-" + i + "\",\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":"
                                + "\"invoke\",\"argumentsSha256\":\"" + ARGS_SHA256 + "\"}", 200);
                long acked = System.nanoTime();
                String id = Canonical.parse(answer).path("receipt").path("id").asText();
                while (true) {
                    HttpResponse<String> proof = get(http, base, "/v1/receipts/" + id + "/proof", auditor);
                    if (proof.statusCode() == 200) {
                        ackToProof.add(System.nanoTime() - acked);
                        break;
                    }
                    if (proof.statusCode() != 409) {
                        throw new IllegalStateException("proof of " + id + ": " + proof.statusCode() + " " + proof.body());
                    }
                    Thread.sleep(10);
                }
            }
            print("a. ack -> proof served over HTTP (one admission every 20 ms, polled every 10 ms)", ackToProof);

            server.engine().integrate();
            size = server.engine().log().latest().size();
            Random random = new Random(42);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < samples; i++) {
                long index = (long) (random.nextDouble() * size);
                String line = get(http, base, "/v1/log/entries?start=" + index + "&limit=1", auditor).body();
                ids.add(Canonical.parse(line).path("id").asText());
            }
            // Timed with the generator's one-socket client: the JDK client's thread hand-offs would be most of a
            // millisecond on two cores shared with the ledger.
            try (HttpLoadGenerator.Http1Connection timed = new HttpLoadGenerator.Http1Connection("127.0.0.1",
                    server.port())) {
                timedProofs(timed, ids, random, samples, size, auditor);
            }
            List<Long> inProcess = new ArrayList<>();
            for (int i = 0; i < samples; i++) {
                long index = (long) (random.nextDouble() * size);
                long s = System.nanoTime();
                server.engine().log().inclusionProof(index, size);
                inProcess.add(System.nanoTime() - s);
            }
            print("d. LogSequencer.inclusionProof in-process (tile reads and hashing only)", inProcess);
        }
    }

    private static void timedProofs(HttpLoadGenerator.Http1Connection timed, List<String> ids, Random random,
                                    int samples, long size, String auditor) throws Exception {
        for (String id : ids) {
            // Warm-up: the JIT compiles the proof path before it is timed.
            timedGet(timed, "/v1/receipts/" + id + "/proof", auditor);
        }
        Collections.shuffle(ids, random);
        List<Long> proofs = new ArrayList<>();
        for (String id : ids) {
            long s = System.nanoTime();
            timedGet(timed, "/v1/receipts/" + id + "/proof", auditor);
            proofs.add(System.nanoTime() - s);
        }
        print("b. GET /v1/receipts/{id}/proof at " + String.format(Locale.ROOT, "%,d", size)
                + " entries, random entries", proofs);
        List<Long> consistency = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            long to = 1 + (long) (random.nextDouble() * size);
            long from = 1 + (long) (random.nextDouble() * to);
            long s = System.nanoTime();
            timedGet(timed, "/v1/log/proof/consistency?from=" + from + "&to=" + to, auditor);
            consistency.add(System.nanoTime() - s);
        }
        print("c. GET /v1/log/proof/consistency between random sizes", consistency);
    }

    private static void timedGet(HttpLoadGenerator.Http1Connection connection, String path, String bearer)
            throws Exception {
        HttpLoadGenerator.Response answer = connection.exchange(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer " + bearer + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        if (answer.status() != 200) {
            throw new IllegalStateException("GET " + path + ": " + answer.status() + " " + answer.text());
        }
    }

    private static String send(HttpClient http, URI base, String method, String path, String bearer, String client,
                               String json, int expected) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(base.resolve(path))
                .header("Authorization", "Bearer " + bearer).header("Client-Token-Sha256", client)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (answer.statusCode() != expected) {
            throw new IllegalStateException(method + " " + path + ": " + answer.statusCode() + " " + answer.body());
        }
        return answer.body();
    }

    private static HttpResponse<String> get(HttpClient http, URI base, String path, String bearer) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Authorization", "Bearer " + bearer).GET()
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- 3. storage

    private static void storage(Path dir) throws Exception {
        Path file = dir.resolve(H2Database.FILE_NAME);
        long stopped = Files.size(file);
        long entries;
        long tiles;
        long checkpoints;
        long events;
        try (H2Database db = H2Database.open(dir, 1); Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement()) {
            entries = single(s, "SELECT tree_size FROM log_head");
            tiles = single(s, "SELECT COALESCE(SUM(LENGTH(hashes)), 0) FROM log_tile");
            checkpoints = single(s, "SELECT COALESCE(SUM(LENGTH(note)), 0) FROM log_checkpoint");
            events = single(s, "SELECT SUM(LENGTH(payload) + COALESCE(LENGTH(metaData), 0) + LENGTH(aggregateIdentifier)"
                    + " + LENGTH(eventIdentifier) + LENGTH(payloadType) + COALESCE(LENGTH(type), 0)"
                    + " + COALESCE(LENGTH(timeStamp), 0)) FROM DomainEventEntry");
            c.rollback();
        }
        // SHUTDOWN COMPACT closes the database under the connection, so it gets a plain one of its own.
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("ledger")
                + ";DB_CLOSE_ON_EXIT=FALSE", "sa", ""); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN COMPACT");
        } catch (SQLException closedUnderUs) {
            // Expected: closing a connection of a database that has just shut down.
        }
        long compacted = Files.size(file);
        System.out.printf(Locale.ROOT, "%n== 3. storage for %,d entries%n", entries);
        System.out.printf(Locale.ROOT, "H2 file after the ledger stopped: %,d bytes, %,.0f per receipt%n", stopped,
                (double) stopped / entries);
        System.out.printf(Locale.ROOT, "H2 file after SHUTDOWN COMPACT:   %,d bytes, %,.0f per receipt%n", compacted,
                (double) compacted / entries);
        System.out.printf(Locale.ROOT, "of which, as values: event rows %,.0f, tree tiles %.1f, checkpoints %.1f bytes"
                + " per receipt%n", (double) events / entries, (double) tiles / entries, (double) checkpoints / entries);
    }

    private static long single(Statement s, String sql) throws Exception {
        try (ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    private static long usedHeapMiB() {
        Runtime rt = Runtime.getRuntime();
        return (rt.totalMemory() - rt.freeMemory()) >> 20;
    }

    private static void print(String what, List<Long> nanos) {
        long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            System.out.println(what + ": no samples");
            return;
        }
        System.out.printf(Locale.ROOT, "%s: n=%d p50 %s p90 %s p99 %s max %s%n", what, sorted.length,
                ms(at(sorted, 0.50)), ms(at(sorted, 0.90)), ms(at(sorted, 0.99)), ms(sorted[sorted.length - 1]));
    }

    private static long at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

}
