package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recovery opens no transaction in part ({@link StoreGate}). Threads commit transactions that set a counter in
 * {@value #ROWS} rows of their own in each of two tables, one with an index on it, while another thread forces; the
 * process dies ({@link PowerCutFileSystem#kill}) and the next open recovers the recorded version. Each thread's rows
 * must hold one counter, in both tables and in the index. Without the gate, H2 took the recorded version map by map
 * while the other threads committed, and this failed 4 runs in 10 (e.g. a thread's 20 rows at 373 in one table and
 * none in the other).
 */
class WholeTransactionRecoveryTest {
    private static final int CYCLES = 12;
    private static final int THREADS = 4;
    /** Rows each thread sets per table and transaction: the more, the longer a commit takes. */
    private static final int ROWS = 20;
    private static final long SEED = Long.getLong("wholetx.seed", System.nanoTime());

    @TempDir
    Path work;

    @Test
    void everyThreadsCounterIsTheSameInBothTablesAfterEveryRecovery() throws Exception {
        Random random = new Random(SEED);
        PowerCutFileSystem.install();
        Path state = Files.createDirectories(work.resolve("cycle-0"));
        List<String> problems = new ArrayList<>();
        long committed = 0;
        for (int cycle = 1; cycle <= CYCLES && problems.isEmpty(); cycle++) {
            H2Database db = H2Database.open(state, THREADS + 2, PowerCutFileSystem.PREFIX, true);
            if (cycle == 1) {
                createTables(db);
            } else {
                if (db.recovered() == null || db.recovered().scannedWholeFile()) {
                    problems.add("cycle " + cycle + ": the open did not recover from the recorded chunk: " + db.recovered());
                }
                int kills = cycle - 1;
                problems.addAll(check(db).stream().map(p -> "after kill " + kills + ": " + p).toList());
            }
            committed += loadThenKill(db, 150 + random.nextInt(350));
            try {
                db.close();
            } catch (RuntimeException | AssertionError e) {
                // After the kill every write fails; closing only releases the files.
            }
            state = PowerCutFileSystem.restart(state, work.resolve("cycle-" + cycle));
        }
        if (problems.isEmpty()) {
            try (H2Database db = H2Database.open(state, 2, PowerCutFileSystem.PREFIX, true)) {
                problems.addAll(check(db).stream().map(p -> "after the last kill: " + p).toList());
            }
        }
        assertThat(problems).as("seed %d", SEED).isEmpty();
        assertThat(committed).as("transactions committed over all cycles").isGreaterThan(CYCLES * 100L);
    }

    private static void createTables(H2Database db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE a (id INT PRIMARY KEY, t INT NOT NULL, n BIGINT NOT NULL)");
            s.execute("CREATE TABLE b (id INT PRIMARY KEY, t INT NOT NULL, n BIGINT NOT NULL, pad VARCHAR(200))");
            s.execute("CREATE INDEX b_n ON b (n)");
            for (int id = 0; id < THREADS * ROWS; id++) {
                s.execute("INSERT INTO a VALUES (" + id + ", " + id % THREADS + ", 0)");
                s.execute("INSERT INTO b VALUES (" + id + ", " + id % THREADS + ", 0, NULL)");
            }
            c.commit();
        }
        db.forcedWrites().force();
    }

    /**
     * {@value #THREADS} threads each count up in a row of its own, in both tables per transaction; another forces
     * without pause; after {@code millis} the process dies. Returns the transactions committed.
     */
    private static long loadThenKill(H2Database db, long millis) throws Exception {
        AtomicBoolean killed = new AtomicBoolean();
        long[] counts = new long[THREADS];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int own = t;
            threads.add(new Thread(() -> {
                try (Connection c = db.dataSource().getConnection();
                     PreparedStatement read = c.prepareStatement("SELECT n FROM a WHERE id = ?");
                     PreparedStatement a = c.prepareStatement("UPDATE a SET n = ? WHERE t = ?");
                     PreparedStatement b = c.prepareStatement("UPDATE b SET n = ?, pad = ? WHERE t = ?")) {
                    read.setInt(1, own);
                    long n;
                    try (ResultSet r = read.executeQuery()) {
                        r.next();
                        n = r.getLong(1);
                    }
                    c.commit();
                    while (!killed.get()) {
                        n++;
                        a.setLong(1, n);
                        a.setInt(2, own);
                        a.executeUpdate();
                        b.setLong(1, n);
                        b.setString(2, "x".repeat((int) (n % 200)));
                        b.setInt(3, own);
                        b.executeUpdate();
                        c.commit();
                        counts[own]++;
                    }
                } catch (SQLException | RuntimeException e) {
                    // The kill reached this transaction.
                }
            }));
        }
        threads.add(new Thread(() -> {
            try {
                while (!killed.get()) {
                    db.forcedWrites().force();
                }
            } catch (SQLException | RuntimeException e) {
                // The kill reached this force.
            }
        }));
        threads.forEach(Thread::start);
        Thread.sleep(millis);
        PowerCutFileSystem.kill();
        killed.set(true);
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        long total = 0;
        for (long count : counts) {
            total += count;
        }
        return total;
    }

    /** Where the rows of a thread, in the two tables and in b's index, disagree about its counter. */
    private static List<String> check(H2Database db) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (int t = 0; t < THREADS; t++) {
                long n = single(s, "SELECT n FROM a WHERE id = " + t);
                long a = single(s, "SELECT COUNT(*) FROM a WHERE t = " + t + " AND n = " + n);
                long b = single(s, "SELECT COUNT(*) FROM b WHERE t = " + t + " AND n = " + n);
                long indexed = single(s, "SELECT COUNT(*) FROM b USE INDEX (b_n) WHERE n = " + n + " AND t = " + t);
                if (a != ROWS || b != ROWS || indexed != ROWS) {
                    problems.add("thread " + t + " has " + a + " rows at " + n + " in a, " + b + " in b, and "
                            + indexed + " in b's index, of " + ROWS);
                }
            }
            c.commit();
        }
        return problems;
    }

    private static long single(Statement s, String query) throws SQLException {
        try (ResultSet r = s.executeQuery(query)) {
            r.next();
            return r.getLong(1);
        }
    }
}
