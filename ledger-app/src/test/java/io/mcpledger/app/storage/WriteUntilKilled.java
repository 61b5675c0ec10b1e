package io.mcpledger.app.storage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link KillRecoveryTest} and {@link RecoveryBenchmark} in a JVM of its own: opens the database at
 * {@code args[0]} (creating table t with {@code args[1]} rows of 4 KB the first time, {@code args[2]} rows (default
 * 500) per forced commit), prints "ready", then commits rows from two threads until it is killed,
 * each commit forced before its id is printed as "acked ID": what the ledger would have acknowledged. Every commit
 * also rewrites an old row, so that H2 writes chunks into the reused space of dead ones, in the middle of the file.
 * {@link #runThenKill} is the other end: it starts the process, reads what it prints, and kills it.
 */
public final class WriteUntilKilled {
    private WriteUntilKilled() {
    }

    /**
     * Starts the writer in a JVM of its own on {@code state} ({@code bulk} rows the first time, {@code batch} rows per
     * forced commit), lets it write for {@code loadMs} once it printed "ready" (which must come within
     * {@code readySeconds}), kills it with SIGKILL, and returns the ids it acknowledged.
     */
    static Set<Long> runThenKill(Path state, int bulk, int batch, long loadMs, long readySeconds) throws Exception {
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WriteUntilKilled.class.getName(),
                state.toAbsolutePath().toString(), Integer.toString(bulk), Integer.toString(batch))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Set<Long> answered = Collections.synchronizedSet(new HashSet<>());
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.equals("ready")) {
                        ready.countDown();
                    } else if (line.startsWith("acked ")) {
                        answered.add(Long.parseLong(line.substring(6)));
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        });
        reader.start();
        if (!ready.await(readySeconds, TimeUnit.SECONDS)) {
            writer.destroyForcibly();
            throw new IllegalStateException("the writer did not start within " + readySeconds + " s");
        }
        Thread.sleep(loadMs);
        writer.destroyForcibly();
        if (!writer.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the writer did not die within 30 s of SIGKILL");
        }
        reader.join(30_000);
        return new HashSet<>(answered);
    }

    /** Inserts a new row: id, index key, payload. */
    static final String INSERT = "INSERT INTO t VALUES (?, ?, ?)";
    /** Rewrites an old row's index key and payload. */
    static final String UPDATE = "UPDATE t SET w = ?, payload = ? WHERE id = ?";

    /**
     * Creates table t (id, an indexed int w, a payload) unless it exists, and when it is empty writes {@code bulk} rows
     * of 4 KB (ids -1 to -bulk), {@code batch} per forced commit. Returns the largest id written after them (0: none).
     */
    static long createTable(H2Database db, int bulk, int batch) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS t (id BIGINT PRIMARY KEY, w INT, payload VARCHAR(8000))");
            s.execute("CREATE INDEX IF NOT EXISTS t_w ON t (w)");
            c.commit();
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM t")) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    try (PreparedStatement insert = c.prepareStatement(INSERT)) {
                        String payload = "x".repeat(4000);
                        for (int i = 0; i < bulk; i++) {
                            insert.setLong(1, -1 - i);
                            insert.setInt(2, i);
                            insert.setString(3, payload);
                            insert.executeUpdate();
                            if (i % batch == batch - 1) {
                                c.commit();
                                db.forcedWrites().force();
                            }
                        }
                    }
                    c.commit();
                    db.forcedWrites().force();
                }
                return rs.getLong(2);
            }
        }
    }

    /**
     * One commit's writes, not committed: row {@code id} inserted, and row {@code oldRow} given a new index key and
     * payload, so that the pages of both the table and its index die in older chunks.
     */
    static void writeRow(PreparedStatement insert, PreparedStatement update, long id, long oldRow) throws SQLException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        insert.setLong(1, id);
        insert.setInt(2, r.nextInt());
        insert.setString(3, "row " + id + " " + "y".repeat(r.nextInt(1500)));
        insert.executeUpdate();
        update.setInt(1, r.nextInt());
        update.setString(2, "z".repeat(r.nextInt(4000)));
        update.setLong(3, oldRow);
        update.executeUpdate();
    }

    public static void main(String[] args) throws Exception {
        H2Database db = H2Database.open(Path.of(args[0]), 4);
        int bulk = Integer.parseInt(args[1]);
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        long first = createTable(db, bulk, batch) + 1;
        AtomicLong ids = new AtomicLong(first);
        System.out.println("ready");
        System.out.flush();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int own = t; // each thread rewrites rows of its own, so the two never wait for each other's locks
            threads.add(new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                try (Connection c = db.dataSource().getConnection();
                     PreparedStatement insert = c.prepareStatement(INSERT);
                     PreparedStatement update = c.prepareStatement(UPDATE)) {
                    while (true) {
                        long id = ids.getAndIncrement();
                        writeRow(insert, update, id, -1 - (2L * r.nextInt(bulk / 2) + own));
                        c.commit();
                        db.forcedWrites().force();
                        synchronized (System.out) {
                            System.out.println("acked " + id);
                            System.out.flush();
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    e.printStackTrace();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
