package io.mcpledger.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.JsonRpcId;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Admission throughput through the command side, with the raw costs it is made of, in one run: Ed25519 signing,
 * H2 insert+commit, the receipt pipeline, and admissions through {@code LedgerEngine.commands()}. A plain
 * {@code main}, not a test: performance is measured by a program, never by timed unit tests.
 *
 * <p>Every case runs for a warm-up, then for a fixed measured time; an operation counts when it both started and
 * ended inside the measured window. Latencies are kept as raw nanos and sorted (HdrHistogram is not on the
 * classpath). Arguments: {@code --warmup=S} and {@code --measure=S} for the admission cases (defaults 5 and 15; the
 * raw cases use fixed shorter windows); {@code --first-warmup=S} for the first admission case (default 15, because
 * the JIT keeps a core busy compiling the engine for tens of seconds); {@code --cases=a,b,c,d} to run a subset
 * (default all; {@code d1}, {@code d2}, {@code d8} and {@code d64} pick single admission cases, for profiling).
 * Besides rate and latency it reports, per case, where the process CPU went (benchmark callers, the ledger's commit
 * workers, other Java threads, and the JVM itself: GC and JIT), the kernel's share, the bytes written and, for
 * admissions, the mean number of commands per group commit.
 * All state lives in temporary directories that are deleted at the end.
 */
public final class AdmissionBenchmark {
    /** One tool for a day: no admission in a benchmark is refused for scope or expiry. {@code LogBenchmark} uses it too. */
    static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 86400}
            """;
    private static final int SESSIONS = 1_000;
    private static final int RECEIPT_SIZED = 600;
    private static final int ROW_SIZED = 700;
    private static final int GROUP = 32;
    /** Caller threads on the many-session cases: 2 and 8, and 64 so that group commit has something to group. */
    private static final int[] CALLER_THREADS = {2, 8, 64};
    private static final String ARGS_SHA256 =
            Sha256.hex("{\"sku\":\"A-1\",\"qty\":3}".getBytes(StandardCharsets.UTF_8));

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static volatile long sink;

    private final Duration firstWarmup;
    private final Duration warmup;
    private final Duration measure;
    private final Set<String> cases;
    private final List<Row> rows = new ArrayList<>();
    private final List<Path> temporary = new ArrayList<>();

    private AdmissionBenchmark(Duration firstWarmup, Duration warmup, Duration measure, Set<String> cases) {
        this.firstWarmup = firstWarmup;
        this.warmup = warmup;
        this.measure = measure;
        this.cases = cases;
    }

    public static void main(String[] args) throws Exception {
        Duration warmup = Duration.ofSeconds(5);
        Duration measure = Duration.ofSeconds(15);
        Duration firstWarmup = Duration.ofSeconds(15);
        Set<String> cases = new LinkedHashSet<>(List.of("a", "b", "c", "d"));
        for (String arg : args) {
            if (arg.startsWith("--warmup=")) {
                warmup = Duration.ofSeconds(Long.parseLong(arg.substring("--warmup=".length())));
            } else if (arg.startsWith("--first-warmup=")) {
                firstWarmup = Duration.ofSeconds(Long.parseLong(arg.substring("--first-warmup=".length())));
            } else if (arg.startsWith("--measure=")) {
                measure = Duration.ofSeconds(Long.parseLong(arg.substring("--measure=".length())));
            } else if (arg.startsWith("--cases=")) {
                cases = new LinkedHashSet<>(Arrays.asList(arg.substring("--cases=".length()).split(",")));
            } else {
                System.err.println("unknown argument '" + arg + "'; use --first-warmup=S --warmup=S --measure=S "
                        + "--cases=a,b,c,d");
                System.exit(2);
            }
        }
        AdmissionBenchmark bench = new AdmissionBenchmark(firstWarmup, warmup, measure, cases);
        try {
            bench.run();
        } finally {
            bench.deleteTemporary();
        }
    }

    private void run() throws Exception {
        printEnvironment();
        long started = System.nanoTime();
        if (cases.contains("a")) {
            signing();
        }
        if (cases.contains("b")) {
            h2();
        }
        Path stateDir = temp("bench-state");
        StateDirectory directory = new StateDirectory(stateDir);
        directory.init(null);
        LoadedState state = directory.load(null);
        if (cases.contains("c")) {
            receiptPipeline(new ReceiptSigner(state.signingKey(), state.origin()));
        }
        if (cases.stream().anyMatch(c -> c.startsWith("d"))) {
            admissions(state);
        }
        System.out.printf(Locale.ROOT, "%nTotal run time %.0f s; load average at the end: %s%n",
                (System.nanoTime() - started) / 1e9, loadAverage());
        System.out.println();
        System.out.println("| case | threads | rate | p50 | p99 | p99.9 | process CPU (of " + CORES + " cores) "
                + "| CPU per unit "
                + "| written per unit | commands per commit |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Row row : rows) {
            System.out.println(row.markdown());
        }
    }

    // ---------------------------------------------------------------- a. raw signing

    private void signing() throws Exception {
        section("a. Bouncy Castle Ed25519, SigningKey.sign on a " + RECEIPT_SIZED + "-byte message");
        SigningKey key = SigningKey.generate(new SecureRandom());
        byte[] message = new byte[RECEIPT_SIZED];
        new SecureRandom().nextBytes(message);
        for (int threads : new int[] {1, 2}) {
            record(measure("a. Ed25519 sign", "signatures/s", threads, Duration.ofSeconds(2), Duration.ofSeconds(4),
                    t -> {
                        sink += key.sign(message)[0];
                        return 1;
                    }));
        }
    }

    // ---------------------------------------------------------------- b. raw H2

    private void h2() throws Exception {
        section("b. H2 insert+commit, H2Database.open(dir) (the ledger's WRITE_DELAY, not forced), " + ROW_SIZED
                + "-byte rows");
        byte[][] payloads = new byte[64][ROW_SIZED];
        SecureRandom random = new SecureRandom();
        for (byte[] p : payloads) {
            random.nextBytes(p);
        }
        try (H2Database db = H2Database.open(temp("bench-h2"))) {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE bench_row (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "
                        + "payload VARBINARY NOT NULL)");
                // The shape of Axon's domain event table: two unique indexes besides the primary key; and the same
                // without the unique index on the random eventIdentifier, to size what that index costs.
                for (String table : new String[] {"bench_event", "bench_event_noid"}) {
                    s.execute("CREATE TABLE " + table + " (globalIndex BIGINT GENERATED BY DEFAULT AS IDENTITY "
                            + "PRIMARY KEY, aggregateIdentifier VARCHAR(255) NOT NULL, sequenceNumber BIGINT NOT NULL, "
                            + "type VARCHAR(255), eventIdentifier VARCHAR(255) NOT NULL"
                            + (table.equals("bench_event") ? " UNIQUE" : "") + ", metaData VARBINARY, "
                            + "payload VARBINARY NOT NULL, payloadRevision VARCHAR(255), "
                            + "payloadType VARCHAR(255) NOT NULL, timeStamp VARCHAR(255) NOT NULL, "
                            + "UNIQUE (aggregateIdentifier, sequenceNumber))");
                }
                c.commit();
            }
            AtomicLong next = new AtomicLong();
            // The first case warms up longer: the JIT is still compiling H2 for several seconds.
            record(insertRows(db, "b. H2 insert+commit, 1 row/commit", 1, 1, payloads, next, Duration.ofSeconds(6)));
            record(insertRows(db, "b. H2 insert+commit, 1 row/commit", 2, 1, payloads, next, Duration.ofSeconds(2)));
            record(insertRows(db, "b. H2 insert+commit, " + GROUP + " rows/commit", 1, GROUP, payloads, next,
                    Duration.ofSeconds(2)));
            record(insertEvents(db, payloads, "bench_event", 1,
                    "b. H2 Axon-shaped event row (2 unique indexes), 1 row/commit"));
            record(insertEvents(db, payloads, "bench_event", GROUP,
                    "b. H2 Axon-shaped event row (2 unique indexes), " + GROUP + " rows/commit"));
            record(insertEvents(db, payloads, "bench_event_noid", GROUP,
                    "b. H2 Axon-shaped, eventIdentifier not indexed, " + GROUP + " rows/commit"));
        }
    }

    private Row insertRows(H2Database db, String name, int threads, int perCommit, byte[][] payloads, AtomicLong next,
                           Duration warmup) throws Exception {
        Connection[] connections = new Connection[threads];
        PreparedStatement[] inserts = new PreparedStatement[threads];
        try {
            for (int t = 0; t < threads; t++) {
                connections[t] = db.dataSource().getConnection();
                inserts[t] = connections[t].prepareStatement("INSERT INTO bench_row (payload) VALUES (?)");
            }
            return measure(name, "rows/s", threads, warmup, Duration.ofSeconds(4), t -> {
                for (int i = 0; i < perCommit; i++) {
                    inserts[t].setBytes(1, payloads[(int) (next.incrementAndGet() & 63)]);
                    inserts[t].executeUpdate();
                }
                connections[t].commit();
                return perCommit;
            });
        } finally {
            for (int t = 0; t < threads; t++) {
                if (connections[t] != null) {
                    connections[t].close();
                }
            }
        }
    }

    /** Rows shaped like Axon's events of 1,000 sessions, round robin, {@code perCommit} rows per commit. */
    private Row insertEvents(H2Database db, byte[][] payloads, String table, int perCommit, String name)
            throws Exception {
        long[] sequences = new long[SESSIONS];
        String[] aggregates = new String[SESSIONS];
        for (int i = 0; i < SESSIONS; i++) {
            aggregates[i] = "mcp-" + UUID.randomUUID();
        }
        AtomicLong next = new AtomicLong();
        byte[] metaData = "{}".getBytes(StandardCharsets.UTF_8);
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " (aggregateIdentifier, "
                     + "sequenceNumber, type, eventIdentifier, metaData, payload, payloadRevision, payloadType, "
                     + "timeStamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            return measure(name, "rows/s", 1, Duration.ofSeconds(2), Duration.ofSeconds(4), t -> {
                for (int i = 0; i < perCommit; i++) {
                    long n = next.incrementAndGet();
                    int a = (int) (n % SESSIONS);
                    insert.setString(1, aggregates[a]);
                    insert.setLong(2, sequences[a]++);
                    insert.setString(3, "SessionAggregate");
                    insert.setString(4, UUID.randomUUID().toString());
                    insert.setBytes(5, metaData);
                    insert.setBytes(6, payloads[(int) (n & 63)]);
                    insert.setString(7, null);
                    insert.setString(8, "io.mcpledger.domain.session.CallAdmitted");
                    insert.setString(9, Instant.now().toString());
                    insert.executeUpdate();
                }
                c.commit();
                return perCommit;
            });
        }
    }

    // ---------------------------------------------------------------- c. receipt pipeline

    private void receiptPipeline(ReceiptSigner signer) throws Exception {
        section("c. ReceiptSigner.sign of a call.admitted draft (ids, body, JCS twice, Ed25519)");
        RandomIds ids = new RandomIds();
        String token = token(0);
        String session = SessionIds.issue(token, RandomIds.sessionRandom());
        String capability = ids.capabilityId();
        String policyHash = PolicyFiles.parse(POLICY).hash();
        String prev = Sha256.hex("previous receipt".getBytes(StandardCharsets.UTF_8));
        Instant at = Instant.now();
        Receipt sample = signer.sign(callAdmittedDraft(ids, session, capability, policyHash, prev, 0, at));
        System.out.println("receipt line: " + sample.line().length() + " bytes");
        AtomicLong next = new AtomicLong();
        record(measure("c. receipt pipeline (ReceiptSigner.sign)", "receipts/s", 1, Duration.ofSeconds(2),
                Duration.ofSeconds(4), t -> {
                    Receipt r = signer.sign(callAdmittedDraft(ids, session, capability, policyHash, prev,
                            next.incrementAndGet(), at));
                    sink += r.line().length();
                    return 1;
                }));
        // One of the pipeline's two passes, to size what skipping the second one would save.
        JsonNode tree = Canonical.parse(sample.line());
        record(measure("c. one JCS pass over a receipt tree (Canonical.jcs)", "passes/s", 1, Duration.ofSeconds(2),
                Duration.ofSeconds(4), t -> {
                    sink += Canonical.jcs(tree).length();
                    return 1;
                }));
    }

    /** The draft SessionAggregate builds for an admitted call: callBody plus the chain fields. */
    private static ReceiptDraft callAdmittedDraft(RandomIds ids, String session, String capability, String policyHash,
                                                  String prev, long n, Instant at) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("server", "pricing");
        body.put("tool", "quote");
        body.put("operation", "invoke");
        body.put("argumentsSha256", ARGS_SHA256);
        body.put("jsonrpcId", Long.toString(n));
        body.put("capability", capability);
        body.put("policy", policyHash);
        return new ReceiptDraft(ids.receiptId(at), ReceiptKind.CALL_ADMITTED, at, session, n + 2, prev, "req-" + n, body);
    }

    // ---------------------------------------------------------------- d. admissions through the engine

    private void admissions(LoadedState state) throws Exception {
        Path stateDir = state.directory();
        section("d. admissions: LedgerEngine.commands().sendAndWait(new RequestCall(...)), policy active, "
                + "group commit");
        PolicyDocument policy = PolicyFiles.parse(POLICY);
        LedgerSettings settings = new LedgerSettings(stateDir, null, HostPort.parse("127.0.0.1:0"), policy,
                Duration.ofMinutes(30), 100_000, Duration.ofSeconds(1));
        AtomicLong sent = new AtomicLong();
        long stored;
        long expected;
        try (LedgerEngine engine = LedgerEngine.start(state, settings, Clock.systemUTC())) {
            String[] sessions = new String[SESSIONS + 1];
            String[] tokens = new String[SESSIONS + 1];
            long t0 = System.nanoTime();
            List<CompletableFuture<Object>> opened = new ArrayList<>();
            for (int i = 0; i <= SESSIONS; i++) {
                tokens[i] = token(i);
                sessions[i] = SessionIds.issue(tokens[i], RandomIds.sessionRandom());
                opened.add(engine.commands().send(new InitializeSession(sessions[i], tokens[i], "alice", "pricing",
                        "2025-06-18", null, new Edge("edge-bench", "1"), engine.now())));
            }
            for (CompletableFuture<Object> answer : opened) {
                if (!(answer.get() instanceof SessionAnswer)) {
                    throw new IllegalStateException("a session did not open: " + answer.get());
                }
            }
            System.out.printf(Locale.ROOT, "initialized %d sessions in %.1f s%n", SESSIONS + 1,
                    (System.nanoTime() - t0) / 1e9);

            AtomicLong requestIds = new AtomicLong();
            LongSupplier[] batches = {() -> engine.commandBus().batches(), () -> engine.commandBus().commands()};
            // The first case warms up longer: C2 keeps a core busy compiling the engine for tens of seconds.
            Duration[] nextWarmup = {firstWarmup.compareTo(warmup) > 0 ? firstWarmup : warmup};
            if (cases.contains("d") || cases.contains("d1")) {
                Duration w = nextWarmup[0];
                nextWarmup[0] = warmup;
                record(measure("d(i). admissions, 1 session", "admissions/s", 1, w, measure,
                        t -> admit(engine, sessions[SESSIONS], tokens[SESSIONS], requestIds, sent), batches));
            }
            AtomicLong roundRobin = new AtomicLong();
            for (int threads : CALLER_THREADS) {
                if (!cases.contains("d") && !cases.contains("d" + threads)) {
                    continue;
                }
                Duration w = nextWarmup[0];
                nextWarmup[0] = warmup;
                record(measure((threads <= 8 ? "d(ii)" : "d(iii)") + ". admissions, " + SESSIONS + " sessions",
                        "admissions/s", threads, w, measure, t -> {
                            int s = (int) (roundRobin.getAndIncrement() % SESSIONS);
                            return admit(engine, sessions[s], tokens[s], requestIds, sent);
                        }, batches));
            }
            stored = engine.projector().digest().treeSize();
            expected = 1 + (SESSIONS + 1) + sent.get();
        }
        // Count what is durably in the file, through a fresh pool after the engine has closed the database.
        long rows;
        try (H2Database db = H2Database.open(stateDir);
             Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM DomainEventEntry")) {
            r.next();
            rows = r.getLong(1);
        }
        System.out.printf(Locale.ROOT, "check: %d admissions sent, all admitted; projection tree size %d, "
                + "DomainEventEntry rows after close %d, expected %d (policy + %d sessions + admissions)%n",
                sent.get(), stored, rows, expected, SESSIONS + 1);
        if (stored != expected || rows != expected) {
            throw new IllegalStateException("the store does not hold every admission: expected " + expected
                    + ", projection " + stored + ", rows " + rows);
        }
    }

    private static int admit(LedgerEngine engine, String session, String token, AtomicLong requestIds,
                             AtomicLong sent) {
        long n = requestIds.incrementAndGet();
        Object answer = engine.commands().sendAndWait(new RequestCall(session, token, "req-" + n, "pricing", "quote",
                "invoke", ARGS_SHA256, JsonRpcId.integer(n), engine.now()));
        if (!(answer instanceof CallAnswer call) || !call.admitted()) {
            throw new IllegalStateException("request req-" + n + " on " + session + " was not admitted: " + answer);
        }
        sent.incrementAndGet();
        return 1;
    }

    // ---------------------------------------------------------------- harness

    @FunctionalInterface
    private interface Op {
        /** Does one operation on worker {@code thread}; returns how many units (rows, admissions) it completed. */
        int run(int thread) throws Exception;
    }

    /**
     * Runs {@code op} on {@code threads} workers for warm-up plus measure; counts the units and latencies of the
     * operations that started and ended inside the measured window, and the process CPU and GC time spent in it.
     */
    private static Row measure(String name, String unit, int threads, Duration warmup, Duration measure, Op op)
            throws Exception {
        return measure(name, unit, threads, warmup, measure, op, null);
    }

    /** As above; {@code batches} (commits, commands) gives the mean group-commit batch inside the window. */
    private static Row measure(String name, String unit, int threads, Duration warmup, Duration measure, Op op,
                               LongSupplier[] batches) throws Exception {
        long[][] latencies = new long[threads][];
        int[] counts = new int[threads];
        long[] units = new long[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch counted = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread worker = new Thread(() -> {
                long[] lat = new long[1 << 16];
                int count = 0;
                long done = 0;
                ready.countDown();
                try {
                    go.await();
                    long start = window[0];
                    long end = window[1];
                    while (failure.get() == null) {
                        long before = System.nanoTime();
                        if (before >= end) {
                            break;
                        }
                        int n = op.run(id);
                        long after = System.nanoTime();
                        if (before >= start && after <= end) {
                            if (count == lat.length) {
                                lat = Arrays.copyOf(lat, lat.length * 2);
                            }
                            lat[count++] = after - before;
                            done += n;
                        }
                    }
                    // Stay alive until the end-of-window CPU snapshot has counted this thread.
                    counted.await();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                latencies[id] = lat;
                counts[id] = count;
                units[id] = done;
            }, "bench-" + t);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        long begin = System.nanoTime();
        window[0] = begin + warmup.toNanos();
        window[1] = window[0] + measure.toNanos();
        go.countDown();
        sleepUntil(window[0]);
        Counters before = Counters.now(batches);
        sleepUntil(window[1]);
        Counters after = Counters.now(batches);
        counted.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(name + " failed: " + failure.get(), failure.get());
        }
        int total = 0;
        long totalUnits = 0;
        for (int t = 0; t < threads; t++) {
            total += counts[t];
            totalUnits += units[t];
        }
        long user = after.ticks()[0] - before.ticks()[0];
        long system = after.ticks()[1] - before.ticks()[1];
        double kernelShare = user + system <= 0 ? Double.NaN : (double) system / (user + system);
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(latencies[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        Arrays.sort(all);
        double seconds = measure.toNanos() / 1e9;
        long cpu = after.cpu() - before.cpu();
        long commits = after.commits() - before.commits();
        return new Row(name, unit, threads, totalUnits / seconds, all, cpu / 1e9 / seconds,
                totalUnits == 0 ? 0 : cpu / 1e3 / totalUnits, after.gc() - before.gc(),
                totalUnits == 0 || before.written() < 0 ? -1 : (after.written() - before.written()) / totalUnits,
                perUnitMicros(before.threads(), after.threads(), cpu, totalUnits), kernelShare, after.jit() - before.jit(),
                commits == 0 ? Double.NaN : (double) (after.commands() - before.commands()) / commits);
    }

    /** The process counters read at each end of the measured window; {@code batches} may be null. */
    private record Counters(long cpu, long gc, long written, long[] ticks, long jit, long[] threads, long commits,
                            long commands) {
        static Counters now(LongSupplier[] batches) {
            return new Counters(OS.getProcessCpuTime(), gcMillis(), bytesWritten(), userSystemTicks(),
                    JIT.getTotalCompilationTime(), threadCpuByGroup(), batches == null ? 0 : batches[0].getAsLong(),
                    batches == null ? 0 : batches[1].getAsLong());
        }
    }

    private record Row(String name, String unit, int threads, double rate, long[] sortedNanos, double cpuCores,
                       double cpuMicrosPerUnit, long gcMillis, long bytesWrittenPerUnit, double[] threadMicrosPerUnit,
                       double kernelShare, long jitMillis, double meanBatch) {
        double percentileMicros(double q) {
            if (sortedNanos.length == 0) {
                return Double.NaN;
            }
            int index = (int) Math.ceil(q * sortedNanos.length) - 1;
            return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, index))] / 1e3;
        }

        String text() {
            return String.format(Locale.ROOT,
                    "%-62s %d thr  %,10.0f %-12s p50 %s  p99 %s  p99.9 %s  CPU %3.0f%% of %d cores, %.1f us/unit, "
                            + "= callers %.1f + commit workers %.1f + other Java threads %.1f + JVM (GC, JIT) %.1f; "
                            + "kernel %.0f%%; GC %d ms, JIT %d ms, written %s/unit%s",
                    name, threads, rate, unit, micros(percentileMicros(0.50)), micros(percentileMicros(0.99)),
                    micros(percentileMicros(0.999)), cpuCores * 100 / CORES, CORES, cpuMicrosPerUnit,
                    threadMicrosPerUnit[0],
                    threadMicrosPerUnit[1], threadMicrosPerUnit[2], threadMicrosPerUnit[3], kernelShare * 100, gcMillis,
                    jitMillis, bytes(bytesWrittenPerUnit), batch());
        }

        String markdown() {
            return String.format(Locale.ROOT, "| %s | %d | %,.0f %s | %s | %s | %s | %.0f%% | %.0f us | %s | %s |",
                    name, threads, rate, unit, micros(percentileMicros(0.50)), micros(percentileMicros(0.99)),
                    micros(percentileMicros(0.999)), cpuCores * 100 / CORES, cpuMicrosPerUnit,
                    bytes(bytesWrittenPerUnit),
                    Double.isNaN(meanBatch) ? "" : String.format(Locale.ROOT, "%.1f", meanBatch));
        }

        private String batch() {
            return Double.isNaN(meanBatch) ? "" : String.format(Locale.ROOT, ", mean commit batch %.1f", meanBatch);
        }

        private static String bytes(long b) {
            return b < 0 ? "n/a" : b >= 10_240 ? String.format(Locale.ROOT, "%.1f KiB", b / 1024.0) : b + " B";
        }

        private static String micros(double us) {
            return us >= 1_000 ? String.format(Locale.ROOT, "%.2f ms", us / 1_000)
                    : String.format(Locale.ROOT, "%.0f us", us);
        }
    }

    private void record(Row row) {
        rows.add(row);
        System.out.println(row.text());
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    /** CPU nanos of the live Java threads so far: benchmark callers, ledger commit workers, every other one. */
    private static long[] threadCpuByGroup() {
        long[] groups = new long[3];
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = THREADS.getThreadCpuTime(info.getThreadId());
            if (cpu < 0) {
                continue;
            }
            String name = info.getThreadName();
            groups[name.startsWith("bench-") ? 0 : name.startsWith("ledger-commit") ? 1 : 2] += cpu;
        }
        return groups;
    }

    /** Per unit: callers, commit workers, other Java threads, and the rest of the process (GC, JIT, VM). */
    private static double[] perUnitMicros(long[] before, long[] after, long processNanos, long units) {
        double[] micros = new double[4];
        if (units == 0) {
            return micros;
        }
        long java = 0;
        for (int g = 0; g < 3; g++) {
            long spent = Math.max(0, after[g] - before[g]);
            java += spent;
            micros[g] = spent / 1e3 / units;
        }
        micros[3] = Math.max(0, processNanos - java) / 1e3 / units;
        return micros;
    }

    /** User and system CPU ticks of the process (fields 14 and 15 of /proc/self/stat); zeros where there is none. */
    private static long[] userSystemTicks() {
        try {
            return ThreadCpu.userAndSystem(Files.readString(Path.of("/proc/self/stat")));
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** Bytes this process has passed to write(2) so far ({@code wchar} of /proc/self/io); -1 where there is none. */
    private static long bytesWritten() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
                if (line.startsWith("wchar:")) {
                    return Long.parseLong(line.substring("wchar:".length()).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: the column reads n/a.
        }
        return -1;
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    private static String token(int n) {
        return Sha256.hex(("bench-client-token-" + n).getBytes(StandardCharsets.UTF_8));
    }

    private static void section(String title) {
        System.out.println();
        System.out.println("== " + title);
    }

    private static void printEnvironment() {
        Runtime rt = Runtime.getRuntime();
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName());
        }
        System.out.printf(Locale.ROOT, "java %s (%s), %d processors, max heap %d MiB, GC %s%n",
                System.getProperty("java.version"), System.getProperty("java.vm.name"), rt.availableProcessors(),
                rt.maxMemory() >> 20, gcs);
        System.out.println("load average at the start: " + loadAverage());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private Path temp(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        temporary.add(dir);
        return dir;
    }

    private void deleteTemporary() throws IOException {
        for (Path dir : temporary) {
            TestIo.deleteTree(dir);
        }
    }
}
