package io.mcpledger.app.storage;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.Callable;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code ledger.mv.db} near the size of its live data while the ledger writes. H2 writes copy-on-write: every
 * commit writes the pages it changed as a new chunk, and the pages they replace die inside older chunks. A chunk's
 * space is reused only once every page in it is dead, so the live pages left in old chunks must be rewritten into new
 * ones. H2's background writer would do that, but it also moves chunks under the store's lock, which held every
 * call up for 0.3 to 0.7 s, so the ledger turns that compaction off (H2Database's settings): this does the
 * rewriting on a schedule, a bounded amount at a time.
 *
 * <p>Each run, while the live share of all chunks is below {@link #TARGET_FILL_RATE}, rewrites up to {@link
 * #REWRITE_BYTES} of live pages taken from the chunks at least {@link #REWRITE_AGE_MS} old that are at most as full as
 * that average (the sparsest, oldest first) and frees the chunks that died. While the file's live share is under
 * {@link #LIVE_SHARE_FLOOR} it is behind: a run then takes chunks of any age past H2's retention time, up to {@link
 * #REWRITE_BYTES_BEHIND}. It calls the same internal method H2's background writer calls with these arguments
 * ({@code FileStore.rewriteChunks(writeLimit, targetFillRate)}, under the store's lock): the public {@code
 * MVStore.compact(targetFillRate, write)} passes a chunk fill limit of 100, so it rewrote old chunks that were almost
 * entirely live, and the file stayed at about half live data (measured: 1.6 to 1.8 KB per receipt instead of 1.2, and
 * a higher latency from the extra writing). Internal API, pinned with H2's version like {@link StoreRecovery} ({@link
 * H2Internals}).
 *
 * <p>Once the store has failed to write, a run only {@link #unstick}s the statements H2 would spin in.
 */
final class StoreHousekeeping {
    private static final Logger LOG = LoggerFactory.getLogger(StoreHousekeeping.class);
    /** How often a run looks at the file's fill rate, in milliseconds. */
    static final long INTERVAL_MS = 200;
    /** The share of chunk space that holds live pages, in percent, at or above which a run does nothing. */
    static final int TARGET_FILL_RATE = 90;
    /** Live bytes one run rewrites at most: a run holds H2's store lock, and commits wait for it meanwhile. */
    static final int REWRITE_BYTES = 4 << 20;
    /**
     * Live bytes one run rewrites at most while the file's live share is under {@link #LIVE_SHARE_FLOOR}. {@link
     * #REWRITE_BYTES} a run could not keep up with a saturated ledger: at 5,000 admissions/s the live share stayed
     * near 55 to 60% and the file at 1,700 bytes per receipt, over contract section 13's bound, where this brought
     * it to 1,293 and 1,310 (benchmarks.md, section 8). 16 MiB did as well for the file (1,300 to 1,336) but held
     * commits up longer: seconds with p99 over 200 ms at that rate in two of three runs, none with this. Up to four
     * rewrites of {@link #REWRITE_BYTES} a run, each committed before the next, did not help (1,727 in one run):
     * likely because the next rewrite found the chunks the one before had emptied not yet counted as dead, and took
     * them again (not confirmed).
     */
    static final int REWRITE_BYTES_BEHIND = 8 << 20;
    /**
     * How old a chunk must be before a run rewrites its live pages, in milliseconds. A chunk a commit wrote a moment
     * ago is mostly pages the next commits write again (the log's last leaf, H2's own layout), so rewriting it is work
     * the store would soon have done for nothing; after a second those have died and what is left is worth moving. The
     * store's retention time ({@code H2Database}), which also decides when a dead chunk may be written over, is
     * shorter, so H2's choice of chunks to rewrite uses this age instead, for the time of the run.
     */
    static final int REWRITE_AGE_MS = 1_000;
    /**
     * The live share of the whole file, in percent, under which runs rewrite young chunks too. Contract section 13
     * bounds the file at a receipt plus 800 bytes per receipt, about 1,450 bytes for the typical 650-byte receipt, of
     * which some 765 are live with outcomes beside the admissions (the log's row and index, the tree's tiles, the
     * projections: benchmarks.md, section 6): a live share of 53%. With every call left pending about 950 bytes per
     * 680-byte receipt are live, which needs 64% (benchmarks.md, section 8, "What the file is made of"). With H2
     * writing behind by 20 ms (H2Database) and a floor of 60 the file fell to 58% live in ten minutes at 1,000
     * admissions/s and reached 1,652 bytes per receipt, over the bound; with 70 it held 73 to 88% and 1,099 to 1,306
     * bytes (benchmarks.md, section 8, "Written behind again"), with no higher latency or CPU.
     * Rewriting only chunks older than {@link #REWRITE_AGE_MS} holds commits up less, but leaves a young file under
     * load above the bound for minutes; rewriting younger chunks all the time keeps it under, at twice the p99 at
     * 1,000 admissions a second (benchmarks.md, section 8). So the young ones are rewritten only while the file needs
     * it.
     */
    static final int LIVE_SHARE_FLOOR = 70;

    private static final Method REWRITE_CHUNKS =
            H2Internals.method(FileStore.class, "rewriteChunks", int.class, int.class);
    private static final Method UNDER_STORE_LOCK =
            H2Internals.method(MVStore.class, "tryExecuteUnderStoreLock", Callable.class);
    private static final Field CURRENT_TX_COUNTER = H2Internals.field(MVStore.class, "currentTxCounter");
    private static final Field TX_COUNTER_COUNT = H2Internals.field(MVStore.TxCounter.class, "counter");

    private final MVStore store;
    private final int rewriteAgeMs;
    private final int rewriteBytes;
    private final int rewriteBytesBehind;

    /** Housekeeping as the ledger runs it: chunks are rewritten from {@link #REWRITE_AGE_MS} on. */
    StoreHousekeeping(MVStore store) {
        this(store, REWRITE_AGE_MS);
    }

    /** Housekeeping that rewrites chunks from {@code rewriteAgeMs} on (tests: 0, so that no clock is measured). */
    StoreHousekeeping(MVStore store, int rewriteAgeMs) {
        this(store, rewriteAgeMs, REWRITE_BYTES, REWRITE_BYTES_BEHIND);
    }

    /** Housekeeping whose runs rewrite at most {@code rewriteBytes}, or {@code rewriteBytesBehind} while behind. */
    StoreHousekeeping(MVStore store, int rewriteAgeMs, int rewriteBytes, int rewriteBytesBehind) {
        this.store = store;
        this.rewriteAgeMs = rewriteAgeMs;
        this.rewriteBytes = rewriteBytes;
        this.rewriteBytesBehind = rewriteBytesBehind;
    }

    /** One run; failures are logged and the next run tries again. */
    void run() {
        try {
            if (store.getPanicException() != null) {
                unstick(store);
                return;
            }
            if (store.isClosed()) {
                return;
            }
            FileStore<?> file = store.getFileStore();
            int fill = file.getChunksFillRate();
            if (fill >= TARGET_FILL_RATE) {
                return;
            }
            // While the file's live share is high enough for the contract's bytes per receipt, only chunks older than
            // the rewrite age are rewritten; under it, any chunk older than the store's retention time.
            boolean behind = liveShare(file, fill) < LIVE_SHARE_FLOOR;
            int age = behind ? 0 : rewriteAgeMs;
            Callable<Boolean> rewrite = () -> {
                // H2 picks only chunks older than its retention time: the store's is short so that dead chunks are
                // reused soon, and younger chunks still hold pages the next commits replace anyway.
                int retention = file.getRetentionTime();
                file.setRetentionTime(Math.max(retention, age));
                boolean rewrote;
                try {
                    rewrote = (Boolean) REWRITE_CHUNKS.invoke(file, behind ? rewriteBytesBehind : rewriteBytes, fill);
                } finally {
                    file.setRetentionTime(retention);
                }
                if (rewrote) {
                    file.dropUnusedChunks();
                }
                return rewrote;
            };
            // Null when the lock was busy for H2's few milliseconds of trying: the next run tries again. Nothing is
            // forced: the rewritten pages hold no new data, H2's background writer writes them as it writes commits,
            // and the next forced write of the store (the checkpoint's, the sequencer's) records them. Until then the
            // version a recovery would open keeps the chunks it reads (StoreRecovery.Marker). A forced write here
            // held every statement back while it wrote the rewritten pages (StoreGate), 3 to 4 times a second at
            // 1,000 admissions/s, up to 33 ms each (docs/benchmarks.md, section 8).
            UNDER_STORE_LOCK.invoke(store, rewrite);
        } catch (InvocationTargetException e) {
            LOG.warn("H2 housekeeping failed; it is tried again: {}", e.getCause().toString());
        } catch (IllegalAccessException | RuntimeException e) {
            LOG.warn("H2 housekeeping failed; it is tried again: {}", e.toString());
        }
    }

    /**
     * The share of the whole file, in percent, that live pages fill: {@code chunksFillRate} (H2's live share of the
     * chunks, {@code getChunksFillRate()}, which walks every chunk) times the chunks' share of the file.
     */
    static int liveShare(FileStore<?> file, int chunksFillRate) {
        return chunksFillRate * file.getFillRate() / 100;
    }

    /**
     * After its store failed to write, H2 2.5.252 can leave every later statement spinning for ever: a commit whose
     * write fails has already given back its transaction's use of the current version (Transaction.closeIt), the
     * rollback that follows gives it back again (releaseSnapshot), the current version's use count goes below zero,
     * and no new version ever comes to replace it, so MVStore.registerVersionUsage, at the start of every statement,
     * loops. Setting the count back to zero lets those statements go on and fail as they should ("database closed").
     * Nothing is written after a failure; this only frees the threads. Internal API, pinned with H2's version.
     */
    static void unstick(MVStore store) throws IllegalAccessException {
        Object current = CURRENT_TX_COUNTER.get(store);
        if (current != null && TX_COUNTER_COUNT.getInt(current) < 0) {
            TX_COUNTER_COUNT.setInt(current, 0);
        }
    }
}
