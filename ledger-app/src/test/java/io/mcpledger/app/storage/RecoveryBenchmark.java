package io.mcpledger.app.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How long a start takes after a {@code kill -9}, by file size. Not a test: run by hand, each step in a JVM of its own
 * as a start would be ({@code CP} is the test classpath of ledger-app):
 *
 * <pre>
 * java -cp $CP io.mcpledger.app.storage.RecoveryBenchmark grow /var/tmp/bench/killed 1200
 * cp -r /var/tmp/bench/killed /var/tmp/bench/a; sync            # then, optionally, echo 3 > /proc/sys/vm/drop_caches
 * java -cp $CP io.mcpledger.app.storage.RecoveryBenchmark open /var/tmp/bench/a /var/tmp/bench/killed/acknowledged
 * </pre>
 *
 * {@code grow} fills a ledger-like file with {@link WriteUntilKilled} (4 KB rows, 10 per forced commit, about 1.4 MB
 * of file per MB asked for), then lets two threads commit a row and rewrite an old one per forced commit, with
 * RETENTION_TIME 1000, for 3 s, kills the writer with SIGKILL, and writes the ids it had acknowledged to
 * {@code acknowledged} beside the state. {@code open} times {@code H2Database.open} (the recovery included) and counts
 * the acknowledged rows missing. Truncate {@code ledger.running} in a copy to time the scan of the whole file instead
 * (what a start did before the record), and open the copy again for a clean open of the same file.
 */
public final class RecoveryBenchmark {
    private RecoveryBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path state = Path.of(args[1]);
        if (args[0].equals("grow")) {
            Files.createDirectories(state);
            Set<Long> acknowledged = WriteUntilKilled.runThenKill(state, Integer.parseInt(args[2]) * 256, 10, 3_000,
                    TimeUnit.HOURS.toSeconds(3));
            Files.write(state.resolve("acknowledged"),
                    acknowledged.stream().map(String::valueOf).collect(Collectors.toList()));
            System.out.printf("killed: %d MB, %d rows acknowledged during the load%n",
                    Files.size(state.resolve(H2Database.FILE_NAME)) >> 20, acknowledged.size());
            return;
        }
        List<String> acknowledged = args.length > 2 ? Files.readAllLines(Path.of(args[2])) : List.of();
        long started = System.nanoTime();
        try (H2Database db = H2Database.open(state)) {
            long ms = (System.nanoTime() - started) / 1_000_000;
            Set<Long> rows = new HashSet<>();
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id FROM t WHERE id > 0")) {
                while (rs.next()) {
                    rows.add(rs.getLong(1));
                }
            } catch (Exception e) {
                // an empty state has no table
            }
            long lost = acknowledged.stream().filter(id -> !rows.contains(Long.parseLong(id))).count();
            System.out.printf("open of %s (%d MB): %d ms, %s, acknowledged rows lost: %d of %d%n", state,
                    Files.size(db.file()) >> 20, ms, db.recovered() == null ? "no recovery"
                            : db.recovered().scannedWholeFile() ? "recovery by the scan of the whole file"
                            : "recovery from the recorded chunk" + (db.recovered().layoutRewritten()
                                    ? " (layout rewritten)" : ""), lost, acknowledged.size());
        }
    }
}
