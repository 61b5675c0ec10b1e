package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Housekeeping keeps the file near its live data while it is written as the ledger writes it: many small commits,
 * each appending a few rows of receipt size by position and rewriting a few rows of a small table (the projections).
 * The same writes without housekeeping leave a file more than twice as large, which shows the test can fail.
 */
class StoreHousekeepingTest {
    private static final int COMMITS = 6_000;
    private static final int ROWS_PER_COMMIT = 8;
    private static final int ROW_BYTES = 700;
    private static final int SESSIONS = 200;

    @TempDir
    Path dir;

    @Test
    void theFileStaysNearItsLiveDataWhileWritten() throws Exception {
        double withHousekeeping = bytesPerRow(dir.resolve("kept.mv.db"), true);
        double without = bytesPerRow(dir.resolve("left.mv.db"), false);
        System.out.printf("bytes per %d-byte row: %.0f with housekeeping, %.0f without%n", ROW_BYTES,
                withHousekeeping, without);

        assertThat(withHousekeeping).as("bytes per row with housekeeping (%.0f without)", without)
                .isLessThan(1.6 * ROW_BYTES);
        assertThat(without).as("bytes per row without housekeeping").isGreaterThan(2 * withHousekeeping);
    }

    private static double bytesPerRow(Path file, boolean housekeeping) throws Exception {
        Random random = new Random(11);
        MVStore store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
        try {
            // No wait before a dead chunk is reused, so that what is measured is the rewriting, not the clock.
            store.setRetentionTime(0);
            MVMap<Long, byte[]> log = store.openMap("log");
            MVMap<Integer, byte[]> sessions = store.openMap("sessions");
            StoreHousekeeping keeper = new StoreHousekeeping(store, ForcedWrites.never(), 0);
            long position = 0;
            for (int commit = 0; commit < COMMITS; commit++) {
                for (int r = 0; r < ROWS_PER_COMMIT; r++) {
                    byte[] row = new byte[ROW_BYTES];
                    random.nextBytes(row);
                    log.put(position++, row);
                    sessions.put(random.nextInt(SESSIONS), new byte[200]);
                }
                store.commit();
                if (housekeeping && commit % 4 == 0) {
                    keeper.run();
                }
            }
        } finally {
            store.close(0);
        }
        return (double) Files.size(file) / (COMMITS * ROWS_PER_COMMIT);
    }
}
