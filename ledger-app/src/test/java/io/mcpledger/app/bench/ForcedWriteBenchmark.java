package io.mcpledger.app.bench;

import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.ReceiptJournal;
import io.mcpledger.domain.crypto.SigningKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The raw limits the durable ledger is measured against, in one run (a plain {@code main}, not a test): Ed25519
 * signatures per second on one and two threads; forced writes per second of the disk under the state directory
 * ({@code write} then {@code fdatasync}: of 4 KiB and of 32 KiB, about one H2 chunk of a single admission, over a
 * region written before, and of 32 KiB appended, the file growing with each, as the ledger's file grows while it
 * writes; and 32 KiB one per millisecond, as the ledger commits at 1,000 admissions/s); and H2 commits per second
 * of 700-byte rows through {@link H2Database} with every commit forced, one row per commit and 64 rows per commit back
 * to back, and one row one per millisecond; and records of the ledger's journal ({@code ForcedWrites.append}: what
 * makes the log's appends durable on H2) of one and of 16 entries of 700 bytes back to back, and of one entry one per
 * millisecond, with the journal's checkpoint starting a new segment once a second. Arguments: the directory to measure the disk of (default: a temporary
 * directory under the working directory) and the seconds per case (default 5).
 */
public final class ForcedWriteBenchmark {
    private ForcedWriteBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path base = args.length > 0 ? Path.of(args[0]) : Path.of(".");
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
        Path dir = Files.createTempDirectory(base.toAbsolutePath(), "forced-write-bench");
        try {
            System.out.printf(Locale.ROOT, "java %s, %d processors, measuring in %s, %.0f s per case%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), dir, seconds);
            signatures(1, seconds);
            signatures(2, seconds);
            fdatasync(dir, seconds, 4096, false, 0);
            fdatasync(dir, seconds, 32768, false, 0);
            fdatasync(dir, seconds, 32768, true, 0);
            fdatasync(dir, seconds, 32768, false, 1000);
            h2Commits(dir, 1, seconds, 0);
            h2Commits(dir, 64, seconds, 0);
            h2Commits(dir, 1, seconds, 1000);
            journalAppends(dir, 1, seconds, 0);
            journalAppends(dir, 16, seconds, 0);
            journalAppends(dir, 1, seconds, 1000);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void signatures(int threads, double seconds) throws InterruptedException {
        SigningKey key = SigningKey.generate(new SecureRandom());
        byte[] message = new byte[700];
        AtomicLong signed = new AtomicLong();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    key.sign(message);
                    n++;
                }
                signed.addAndGet(n);
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        report("Ed25519 signatures, " + threads + " thread" + (threads > 1 ? "s" : ""), signed.get(), seconds);
    }

    /**
     * Writes of {@code bytes} each followed by {@code fdatasync}: at the end of a file that grows with each write when
     * {@code append}, else over the first 1,024 blocks of a file written beforehand, so that no write extends it; back
     * to back, or one every {@code pacedMicros} (the ledger's commits at 1,000 admissions/s), whose tail is the disk's
     * share of an answer's.
     */
    private static void fdatasync(Path dir, double seconds, int bytes, boolean append, long pacedMicros)
            throws IOException {
        ByteBuffer block = ByteBuffer.allocate(bytes);
        Path path = dir.resolve("fsync.bin");
        long n = 0;
        try (FileChannel file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            if (!append) {
                for (long i = 0; i < 1024; i++) {
                    block.clear();
                    file.write(block, i * bytes);
                }
                file.force(false);
            }
            Latencies latencies = new Latencies();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long start = System.nanoTime() - pacedMicros * 1000;
            while (System.nanoTime() < end) {
                start = startPaced(start, pacedMicros);
                block.clear();
                file.write(block, (append ? n : n % 1024) * bytes);
                file.force(false);
                latencies.add(System.nanoTime() - start);
                n++;
            }
            report((bytes / 1024) + " KiB " + (append ? "appended" : "write") + " + fdatasync"
                    + paced(pacedMicros), n, seconds);
            latencies.report();
        } finally {
            Files.deleteIfExists(path);
        }
    }

    /**
     * Waits, spinning (a sleep would add the scheduler's delay), until {@code pacedMicros} after {@code previous}, the
     * last operation's start, and returns the time the next one starts.
     */
    private static long startPaced(long previous, long pacedMicros) {
        long due = previous + pacedMicros * 1000;
        long now;
        while ((now = System.nanoTime()) < due) {
            Thread.onSpinWait();
        }
        return now;
    }

    /** What a case's name says of its pace: nothing when back to back. */
    private static String paced(long pacedMicros) {
        return pacedMicros > 0 ? ", one per " + pacedMicros + " us" : "";
    }

    /** Each operation's time, for the tail: a forced write's p99 is what an answer waits for in the worst 1%. */
    private static final class Latencies {
        private long[] nanos = new long[1 << 16];
        private int size;

        void add(long elapsed) {
            if (size == nanos.length) {
                nanos = Arrays.copyOf(nanos, size * 2);
            }
            nanos[size++] = elapsed;
        }

        void report() {
            report("each");
        }

        void report(String label) {
            long[] sorted = Arrays.copyOf(nanos, size);
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "  " + label + ": p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
                    HttpLoadGenerator.percentile(sorted, 0.50), HttpLoadGenerator.percentile(sorted, 0.99),
                    HttpLoadGenerator.percentile(sorted, 0.999), HttpLoadGenerator.percentile(sorted, 1.0));
        }
    }

    private static void h2Commits(Path dir, int rowsPerCommit, double seconds, long pacedMicros) throws Exception {
        Path state = Files.createDirectories(dir.resolve("h2-" + rowsPerCommit + "-" + pacedMicros));
        byte[] row = new byte[700];
        long rows = 0;
        try (H2Database db = H2Database.open(state, 1); Connection c = db.dataSource().getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v VARBINARY)");
            }
            c.commit();
            Latencies latencies = new Latencies();
            Latencies forces = new Latencies();
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO t (v) VALUES (?)")) {
                long end = System.nanoTime() + (long) (seconds * 1e9);
                long start = System.nanoTime() - pacedMicros * 1000;
                while (System.nanoTime() < end) {
                    start = startPaced(start, pacedMicros);
                    for (int i = 0; i < rowsPerCommit; i++) {
                        insert.setBytes(1, row);
                        insert.executeUpdate();
                    }
                    c.commit();
                    long forceStart = System.nanoTime();
                    db.forcedWrites().force();
                    long now = System.nanoTime();
                    latencies.add(now - start);
                    forces.add(now - forceStart);
                    rows += rowsPerCommit;
                }
            }
            report("H2 commits of " + rowsPerCommit + " 700-byte row" + (rowsPerCommit > 1 ? "s" : "") + ", forced"
                    + paced(pacedMicros), rows / rowsPerCommit, seconds);
            latencies.report();
            forces.report("the forced write alone (store and marker)");
        }
        if (rowsPerCommit > 1) {
            report("  rows in them", rows, seconds);
        }
    }

    private static void journalAppends(Path dir, int entries, double seconds, long pacedMicros) throws Exception {
        Path state = Files.createDirectories(dir.resolve("journal-" + entries + "-" + pacedMicros));
        byte[] line = new byte[700];
        long records = 0;
        try (H2Database db = H2Database.open(state, 1)) {
            Latencies latencies = new Latencies();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long start = System.nanoTime() - pacedMicros * 1000;
            while (System.nanoTime() < end) {
                start = startPaced(start, pacedMicros);
                List<ReceiptJournal.Entry> batch = new ArrayList<>(entries);
                for (int i = 0; i < entries; i++) {
                    long position = records * entries + i;
                    batch.add(new ReceiptJournal.Entry(position, "rcpt-" + position, position - 1, line, null));
                }
                db.forcedWrites().append(List.of(new ReceiptJournal.Batch(records * entries, batch)));
                latencies.add(System.nanoTime() - start);
                records++;
            }
            report("journal records of " + entries + " 700-byte entr" + (entries > 1 ? "ies" : "y") + ", forced"
                    + paced(pacedMicros), records, seconds);
            latencies.report();
        }
        if (entries > 1) {
            report("  entries in them", records * entries, seconds);
        }
    }

    private static void report(String what, long count, double seconds) {
        System.out.printf(Locale.ROOT, "%-48s %,12.0f /s%n", what, count / seconds);
    }
}
