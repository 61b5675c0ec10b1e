package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a process that commits and forces under load ({@link WriteUntilKilled}), on a real file: the next
 * open recovers from the recorded chunk, without the scan of the whole file, and holds every row whose force had
 * returned when the process died.
 */
class KillRecoveryTest {
    private static final int KILLS = Integer.getInteger("kill.kills", 4);
    private static final long SEED = Long.getLong("kill.seed", System.nanoTime());

    @TempDir
    Path state;

    @Test
    void everyAcknowledgedRowSurvivesAKillAndTheRecoveryUsesTheRecord() throws Exception {
        Random random = new Random(SEED);
        Set<Long> acknowledged = new HashSet<>();
        for (int kill = 1; kill <= KILLS; kill++) {
            Set<Long> answered = WriteUntilKilled.runThenKill(state, 4000, 500, 500 + random.nextInt(2500), 120);
            acknowledged.addAll(answered);
            assertThat(answered).as("rows acknowledged before kill %d", kill).isNotEmpty();
            assertThat(state.resolve(StoreRecovery.MARKER)).exists();

            try (H2Database db = H2Database.open(state, 2)) {
                assertThat(db.recovered()).as("kill %d, seed %d", kill, SEED).isNotNull();
                assertThat(db.recovered().scannedWholeFile()).as("kill %d: scanned the whole file", kill).isFalse();
                Set<Long> rows = new HashSet<>();
                try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT id, LENGTH(payload) FROM t")) {
                    while (rs.next()) {
                        rows.add(rs.getLong(1));
                    }
                }
                Set<Long> lost = new HashSet<>(acknowledged);
                lost.removeAll(rows);
                assertThat(lost).as("acknowledged rows lost after kill %d (file %d MB, seed %d)", kill,
                        Files.size(db.file()) >> 20, SEED).isEmpty();
            }
        }
    }
}
