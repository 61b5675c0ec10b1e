package io.mcpledger.app.storage;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link KillRecoveryTest} and {@link RecoveryBenchmark} in a JVM of its own: opens the database at
 * {@code args[0]} (creating table t with {@code args[1]} rows of 4 KB the first time, {@code args[2]} rows (default
 * 500) per forced commit), prints "ready", then commits rows from two threads until it is killed,
 * each commit forced before its id is printed as "acked ID": what the ledger would have acknowledged. Every commit
 * also rewrites an old row, so that H2 writes chunks into the reused space of dead ones, in the middle of the file.
 */
public final class WriteUntilKilled {
    private WriteUntilKilled() {
    }

    public static void main(String[] args) throws Exception {
        H2Database db = H2Database.open(Path.of(args[0]), 4);
        int bulk = Integer.parseInt(args[1]);
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        long first;
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS t (id BIGINT PRIMARY KEY, w INT, payload VARCHAR(8000))");
            s.execute("CREATE INDEX IF NOT EXISTS t_w ON t (w)");
            s.execute("SET RETENTION_TIME 1000");
            c.commit();
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM t")) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
                        for (int i = 0; i < bulk; i++) {
                            insert.setLong(1, -1 - i);
                            insert.setInt(2, i);
                            insert.setString(3, "x".repeat(4000));
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
                first = rs.getLong(2) + 1;
            }
        }
        AtomicLong ids = new AtomicLong(first);
        System.out.println("ready");
        System.out.flush();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int own = t; // each thread rewrites rows of its own, so the two never wait for each other's locks
            threads.add(new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                try (Connection c = db.dataSource().getConnection();
                     PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)");
                     PreparedStatement update = c.prepareStatement("UPDATE t SET w = ?, payload = ? WHERE id = ?")) {
                    while (true) {
                        long id = ids.getAndIncrement();
                        insert.setLong(1, id);
                        insert.setInt(2, r.nextInt());
                        insert.setString(3, "row " + id + " " + "y".repeat(r.nextInt(1500)));
                        insert.executeUpdate();
                        update.setInt(1, r.nextInt());
                        update.setString(2, "z".repeat(r.nextInt(4000)));
                        update.setLong(3, -1 - (2L * r.nextInt(bulk / 2) + own));
                        update.executeUpdate();
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
