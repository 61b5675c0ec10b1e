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
    /** Larger commits and fewer rows written again: a file rewritten in part, whose live share is over the floor. */
    private static final int AHEAD_ROWS_PER_COMMIT = 400;
    private static final double AHEAD_REWRITES = 0.05;

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

    /**
     * A file whose live share is under the floor is behind, and a run then rewrites up to the larger amount; a file
     * above it, only up to the usual one. Each file is written twice the same way, and the run on each copy is given
     * a different amount for when behind: what the run leaves unwritten shows which amount it used. (The copies' live
     * shares may differ by a point, so each is checked on its own.)
     */
    @Test
    void aRunRewritesMoreWhileTheFileIsBehind() throws Exception {
        int bite = 64 << 10;
        Sparse behindSmall = sparseStore(dir.resolve("behind-small.mv.db"), 3, ROWS_PER_COMMIT);
        Sparse behindLarge = sparseStore(dir.resolve("behind-large.mv.db"), 3, ROWS_PER_COMMIT);
        Sparse aheadSmall = sparseStore(dir.resolve("ahead-small.mv.db"), AHEAD_REWRITES, AHEAD_ROWS_PER_COMMIT);
        Sparse aheadLarge = sparseStore(dir.resolve("ahead-large.mv.db"), AHEAD_REWRITES, AHEAD_ROWS_PER_COMMIT);
        try {
            assertThat(behindSmall.liveShare()).as("the live share of the sparse file")
                    .isLessThan(StoreHousekeeping.LIVE_SHARE_FLOOR);
            assertThat(behindLarge.liveShare()).isLessThan(StoreHousekeeping.LIVE_SHARE_FLOOR);
            assertThat(aheadSmall.store.getFileStore().getChunksFillRate()).as("the chunks' live share")
                    .isLessThan(StoreHousekeeping.TARGET_FILL_RATE);
            assertThat(aheadSmall.liveShare()).as("the live share of the file rewritten in part")
                    .isGreaterThanOrEqualTo(StoreHousekeeping.LIVE_SHARE_FLOOR);
            assertThat(aheadLarge.liveShare()).isGreaterThanOrEqualTo(StoreHousekeeping.LIVE_SHARE_FLOOR);
            int behindRewrote = rewritten(behindSmall, bite, bite);
            int behindRewroteMore = rewritten(behindLarge, bite, 4 * bite);
            int aheadRewrote = rewritten(aheadSmall, bite, bite);
            int aheadRewroteMore = rewritten(aheadLarge, bite, 4 * bite);
            System.out.printf("memory of the pages one run rewrote: behind %d, or %d with four times the amount;"
                    + " ahead %d and %d%n", behindRewrote, behindRewroteMore, aheadRewrote, aheadRewroteMore);
            assertThat(behindRewrote).isPositive();
            assertThat(behindRewroteMore).isGreaterThan(2 * behindRewrote);
            assertThat(aheadRewrote).isPositive();
            assertThat(aheadRewroteMore).isLessThan(2 * aheadRewrote);
        } finally {
            for (Sparse s : new Sparse[] {behindSmall, behindLarge, aheadSmall, aheadLarge}) {
                s.store.close(0);
            }
        }
    }

    /** One run with these amounts; the memory of the pages it rewrote, which nothing has written yet. */
    private static int rewritten(Sparse file, int rewriteBytes, int rewriteBytesBehind) {
        assertThat(file.store.hasUnsavedChanges()).isFalse();
        new StoreHousekeeping(file.store, 0, rewriteBytes, rewriteBytesBehind).run();
        return file.store.getUnsavedMemory();
    }

    /** A store written sparse. */
    private record Sparse(MVStore store) {
        int liveShare() {
            return StoreHousekeeping.liveShare(store.getFileStore(), store.getFileStore().getChunksFillRate());
        }
    }

    /**
     * Rows of receipt size written in commits of {@code rowsPerCommit}, then {@code rewrites} times as many written
     * again at random positions among them: the smaller the commits and the more written again, the more of the
     * chunks is dead.
     */
    private static Sparse sparseStore(Path file, double rewrites, int rowsPerCommit) {
        Random random = new Random(17);
        MVStore store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
        store.setRetentionTime(0);
        MVMap<Long, byte[]> log = store.openMap("log");
        int rows = 4_000;
        for (long position = 0; position < rows; position++) {
            log.put(position, new byte[ROW_BYTES]);
            if (position % rowsPerCommit == 0) {
                store.commit();
            }
        }
        for (int i = 0; i < rewrites * rows; i++) {
            log.put((long) random.nextInt(rows), new byte[ROW_BYTES]);
            if (i % rowsPerCommit == 0) {
                store.commit();
            }
        }
        store.commit();
        return new Sparse(store);
    }

    private static double bytesPerRow(Path file, boolean housekeeping) throws Exception {
        Random random = new Random(11);
        MVStore store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
        try {
            // No wait before a dead chunk is reused, so that what is measured is the rewriting, not the clock.
            store.setRetentionTime(0);
            MVMap<Long, byte[]> log = store.openMap("log");
            MVMap<Integer, byte[]> sessions = store.openMap("sessions");
            StoreHousekeeping keeper = new StoreHousekeeping(store, 0);
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
