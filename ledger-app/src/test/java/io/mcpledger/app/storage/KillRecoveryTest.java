package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
            Process writer = new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    WriteUntilKilled.class.getName(), state.toAbsolutePath().toString(), "4000")
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            Set<Long> answered = java.util.Collections.synchronizedSet(new HashSet<>());
            CountDownLatch ready = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(
                        new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        if (line.equals("ready")) {
                            ready.countDown();
                        } else if (line.startsWith("acked ")) {
                            answered.add(Long.parseLong(line.substring(6)));
                        }
                    }
                } catch (Exception e) {
                    // the process is gone
                }
            });
            reader.start();
            assertThat(ready.await(120, TimeUnit.SECONDS)).as("the writer started").isTrue();
            Thread.sleep(500 + random.nextInt(2500));
            writer.destroyForcibly(); // SIGKILL
            assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(30_000);
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
