package io.mcpledger.app.storage;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Lets the version a recovery will open be written while nothing changes the store.
 *
 * <p>H2 writes a version of its store by taking each map's root in turn (MVStore.collectChangedMapRoots), while
 * other threads go on changing maps. A transaction changes several maps: its undo log, a table, the table's indexes,
 * other tables; its commit rewrites the entries of each. A version taken in the middle of that holds part of the
 * transaction: a row in a table without its index entry, one table from a commit and another from before it. H2
 * opens such a version after a crash as it is, and the ledger saw both (a row missing from its index; a session's
 * projection from a later flush than the position the projections said they had folded).
 *
 * <p>So every call into the database that can change the store (a statement, a commit, a rollback, a close) passes
 * {@link #enter}/{@link #exit}, any number at a time, and the forced write whose version a recovery opens ({@link
 * StoreRecovery.Marker#force}) takes the store's version inside {@link #exclusive}, once the calls under way have
 * returned and before new ones start. Open transactions are no problem: their changes and undo log are taken whole,
 * and a recovery rolls them back.
 *
 * <p>A call waits for a pending exclusive section at most {@link #YIELD_NANOS}: a call under way may be waiting on a
 * row lock that a transaction holds until its commit, and that commit must not wait for the exclusive section, which
 * waits for the call. After the wait the call goes ahead, and the exclusive section goes on waiting for a moment when
 * none is under way.
 *
 * <p>Once the store has failed to write, nothing waits here: an exclusive section fails at once, and a call under way
 * may never return (see {@link StoreHousekeeping#unstick}).
 */
final class StoreGate {
    /** How long a new call waits behind a pending exclusive section before it goes ahead anyway. */
    static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** How long an exclusive section waits between looks at whether the store has failed. */
    private static final long FAILURE_CHECK_MS = 50;

    /** Why the store can no longer write, or null while it can. */
    private final Supplier<String> failure;
    /** The calls under way. */
    private int active;
    /** Exclusive sections waiting for the calls under way to return. */
    private int pending;
    private boolean exclusive;

    /** A gate for a store whose failure to write {@code failure} reports (null while there is none). */
    StoreGate(Supplier<String> failure) {
        this.failure = failure;
    }

    /** Before a call that may change the store: waits while an exclusive section runs, or briefly for one pending. */
    synchronized void enter() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + YIELD_NANOS;
        while (exclusive || pending > 0) {
            long wait = deadline - System.nanoTime();
            if (!exclusive && wait <= 0) {
                break;
            }
            try {
                if (exclusive) {
                    wait();
                } else {
                    TimeUnit.NANOSECONDS.timedWait(this, wait);
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        active++;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** After the call {@link #enter} admitted. */
    synchronized void exit() {
        if (--active == 0 && pending > 0) {
            notifyAll();
        }
    }

    /** Something that runs while no call changes the store. */
    @FunctionalInterface
    interface Section<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code section} once no call is under way, holding new calls back until it returns; fails with {@link
     * IllegalStateException}, running nothing, once the store has failed to write.
     */
    <T, E extends Exception> T exclusive(Section<T, E> section) throws E {
        synchronized (this) {
            pending++;
            boolean interrupted = false;
            try {
                while (exclusive || active > 0) {
                    String failed = failure.get();
                    if (failed != null) {
                        throw new IllegalStateException("the store failed to write: " + failed);
                    }
                    try {
                        wait(FAILURE_CHECK_MS);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (--pending == 0 && !exclusive) {
                    notifyAll();
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            exclusive = true;
        }
        try {
            return section.run();
        } finally {
            synchronized (this) {
                exclusive = false;
                notifyAll();
            }
        }
    }
}
