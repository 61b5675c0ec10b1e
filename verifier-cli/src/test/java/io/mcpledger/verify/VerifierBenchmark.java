package io.mcpledger.verify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;

/**
 * The verifier's figures for docs/benchmarks.md, a plain {@code main}:
 *
 * <ol>
 *   <li>Bundle: {@code --entries=N} receipts (default 1,000,000) signed with the vectors' TEST key, in sessions of one
 *       {@code session.initialized} and 99 {@code call.admitted}/{@code call.outcome} receipts, 100 sessions
 *       interleaved at a time as a busy log interleaves them; kept in {@code --dir} and reused when it is there.</li>
 *   <li>Raw limit: Bouncy Castle Ed25519 verifications per second on one thread and on every core, of real signing
 *       inputs from that log, {@code --seconds} each.</li>
 *   <li>{@code ledger-verify log} and {@code replay --json} run in process on the bundle, {@code --runs} times each:
 *       wall time and receipts per second.</li>
 *   <li>{@code replay --by-root}: the same rebuild, the lines authenticated by the checkpoint's root alone.</li>
 *   <li>Rebuild alone: parsing and folding every line on one thread, no signature checks: the part of replay that is
 *       not verification.</li>
 *   <li>{@code --phases=raw,log,replay,byroot,rebuild} picks the measurements after the raw limit (always taken).</li>
 * </ol>
 */
public final class VerifierBenchmark {
    private VerifierBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long entries = 1_000_000;
        Path dir = Path.of("/tmp/ledger-verify-bench");
        int seconds = 5;
        int runs = 2;
        java.util.Set<String> phases = java.util.Set.of("raw", "log", "replay", "byroot", "rebuild");
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "--entries" -> entries = Long.parseLong(kv[1]);
                case "--dir" -> dir = Path.of(kv[1]);
                case "--seconds" -> seconds = Integer.parseInt(kv[1]);
                case "--runs" -> runs = Integer.parseInt(kv[1]);
                case "--phases" -> phases = java.util.Set.of(kv[1].split(","));
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "cores %d, max heap %d MiB, java %s%n", cores,
                Runtime.getRuntime().maxMemory() >> 20, System.getProperty("java.version"));
        Path bundle = bundle(dir, entries);
        System.out.printf(Locale.ROOT, "bundle %s: %,d entries, %,d bytes (%d bytes a line)%n", bundle, entries,
                Files.size(bundle.resolve(Bundles.ENTRIES)), Files.size(bundle.resolve(Bundles.ENTRIES)) / entries);

        List<Receipt> sample = sample(bundle, 2048);
        double one = rawVerify(sample, 1, seconds);
        double all = rawVerify(sample, cores, seconds);
        System.out.printf(Locale.ROOT, "raw Ed25519 verify (Bouncy Castle): %,.0f/s on 1 thread, %,.0f/s on %d threads;"
                + " target for log = 0.9 x %d x %,.0f = %,.0f/s%n", one, all, cores, cores, one, 0.9 * cores * one);

        Path key = bundle.resolve("key.pem");
        for (int run = 1; run <= runs && phases.contains("log"); run++) {
            double log = timed("log", bundle.toString(), "--key", key.toString());
            System.out.printf(Locale.ROOT, "ledger-verify log, run %d: %.2f s, %,.0f receipts/s (%.0f%% of the target,"
                    + " %.0f%% of %d threads' raw rate)%n", run, log, entries / log, 100 * entries / log / (0.9 * cores * one),
                    100 * entries / log / all, cores);
        }
        for (int run = 1; run <= runs && phases.contains("replay"); run++) {
            double replay = timed("replay", bundle.toString(), "--json", "--key", key.toString());
            System.out.printf(Locale.ROOT, "ledger-verify replay --json, run %d: %.2f s, %,.0f receipts/s%n", run, replay,
                    entries / replay);
        }
        for (int run = 1; run <= runs && phases.contains("byroot"); run++) {
            double replay = timed("replay", bundle.toString(), "--by-root", "--json", "--key", key.toString());
            System.out.printf(Locale.ROOT, "ledger-verify replay --by-root --json, run %d: %.2f s, %,.0f receipts/s%n",
                    run, replay, entries / replay);
        }
        for (int run = 1; run <= runs && phases.contains("rebuild"); run++) {
            long start = System.nanoTime();
            MemoryLedgerState state = new MemoryLedgerState();
            try (BufferedReader in = Files.newBufferedReader(bundle.resolve(Bundles.ENTRIES))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    LedgerFold.apply(state, Receipt.parse(line));
                }
            }
            double rebuild = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "rebuild alone (parse + fold, 1 thread, no signatures), run %d: %.2f s for"
                    + " %,d receipts, %d sessions%n", run, rebuild, state.size(), state.sessions().size());
        }
    }

    /** Runs ledger-verify in process; the wall time in seconds. Fails unless it exits 0. */
    private static double timed(String... args) {
        CommandLine cli = LedgerVerify.commandLine();
        PrintWriter sink = new PrintWriter(Writer.nullWriter());
        cli.setOut(sink);
        cli.setErr(sink);
        System.gc();
        long start = System.nanoTime();
        int exit = cli.execute(args);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (exit != 0) {
            throw new IllegalStateException("ledger-verify " + String.join(" ", args) + " exited " + exit);
        }
        return seconds;
    }

    private static double rawVerify(List<Receipt> sample, int threads, int seconds) throws Exception {
        VerifyingKey key = TestLog.KEY.publicKey();
        List<byte[]> inputs = new ArrayList<>();
        List<byte[]> signatures = new ArrayList<>();
        for (Receipt r : sample) {
            inputs.add(r.signingInput());
            signatures.add(Base64.getDecoder().decode(r.sig()));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong done = new AtomicLong();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int offset = t;
            futures.add(pool.submit(() -> {
                long n = 0;
                for (int i = offset; System.nanoTime() < deadline; i++, n++) {
                    int k = i % inputs.size();
                    if (!key.verify(inputs.get(k), signatures.get(k))) {
                        throw new IllegalStateException("a sample receipt does not verify");
                    }
                }
                done.addAndGet(n);
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }

    private static List<Receipt> sample(Path bundle, int count) throws Exception {
        List<Receipt> sample = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(bundle.resolve(Bundles.ENTRIES))) {
            for (String line = in.readLine(); line != null && sample.size() < count; line = in.readLine()) {
                sample.add(Receipt.parse(line));
            }
        }
        return sample;
    }

    private static final int SESSION_RECEIPTS = 100;
    private static final int SESSIONS_INTERLEAVED = 100;

    /** The bundle in dir, made when it is not there with that many entries. */
    private static Path bundle(Path dir, long entries) throws Exception {
        Path marker = dir.resolve("entries-" + entries);
        if (Files.exists(marker)) {
            return dir;
        }
        TestLog.write(dir, List.of(), "");
        long start = System.nanoTime();
        ReceiptSigner signer = new ReceiptSigner(TestLog.KEY, TestLog.ORIGIN);
        int threads = Runtime.getRuntime().availableProcessors();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long blocks = (entries + SESSION_RECEIPTS * SESSIONS_INTERLEAVED - 1) / (SESSION_RECEIPTS * SESSIONS_INTERLEAVED);
        CompactRange tree = CompactRange.empty();
        long written = 0;
        try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(Bundles.ENTRIES), StandardCharsets.UTF_8)) {
            List<Future<List<String>>> pending = new ArrayList<>();
            for (long b = 0; b < blocks; b++) {
                long block = b;
                pending.add(pool.submit(() -> block(signer, block)));
            }
            for (Future<List<String>> f : pending) {
                for (String line : f.get()) {
                    if (written == entries) {
                        break;
                    }
                    out.write(line);
                    out.write('\n');
                    tree.append(Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8)));
                    written++;
                }
            }
        }
        pool.shutdown();
        Files.writeString(dir.resolve(Bundles.CHECKPOINT),
                new Checkpoint(TestLog.ORIGIN, written, tree.root()).sign(TestLog.KEY));
        Files.writeString(marker, "");
        System.out.printf(Locale.ROOT, "made the bundle in %.1f s%n", (System.nanoTime() - start) / 1e9);
        return dir;
    }

    /** 100 sessions of 100 receipts, interleaved round-robin. */
    private static List<String> block(ReceiptSigner signer, long block) {
        List<List<String>> sessions = new ArrayList<>();
        Instant at = Instant.parse("2026-11-30T07:00:00Z").plusSeconds(block);
        for (int s = 0; s < SESSIONS_INTERLEAVED; s++) {
            String session = "s-" + block + "-" + s;
            List<String> lines = new ArrayList<>();
            Receipt head = null;
            for (int k = 0; k < SESSION_RECEIPTS; k++) {
                ObjectNode body;
                ReceiptKind kind;
                String request = null;
                if (k == 0) {
                    kind = ReceiptKind.SESSION_INITIALIZED;
                    body = TestLog.body("session.initialized");
                    ((ObjectNode) body.path("capability")).put("id", "cap-" + session);
                } else if (k % 2 == 1) {
                    kind = ReceiptKind.CALL_ADMITTED;
                    body = TestLog.body("call.admitted");
                    body.put("capability", "cap-" + session);
                    request = "req-" + k;
                } else {
                    kind = ReceiptKind.CALL_OUTCOME;
                    body = TestLog.body("call.outcome");
                    request = "req-" + (k - 1);
                }
                head = signer.sign(new ReceiptDraft("rcpt-" + session + "-" + k, kind, at.plusMillis(k), session, k + 1,
                        head == null ? null : head.hash(), request, body));
                lines.add(head.line());
            }
            sessions.add(lines);
        }
        List<String> interleaved = new ArrayList<>(SESSION_RECEIPTS * SESSIONS_INTERLEAVED);
        for (int k = 0; k < SESSION_RECEIPTS; k++) {
            for (List<String> lines : sessions) {
                interleaved.add(lines.get(k));
            }
        }
        return interleaved;
    }
}
