package io.mcpledger.app.storage;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts committed transactions on stable storage, sharing one forced write among every caller that committed before
 * it started (group commit across threads). H2 writes a commit to the file but never forces it; the {@link
 * Force} of {@link H2Database} stores whatever the store has not written yet and then calls {@code
 * FileChannel.force}, so after it returns every transaction committed before the call survives a power loss. The
 * log's appends on H2 are made durable more cheaply, by {@link #append} into the {@link ReceiptJournal}, and so are
 * the sequencer's signed checkpoints ({@link #forceCheckpoint}).
 *
 * <p>A failed force is final: after a failed {@code fsync} the kernel may have dropped the dirty pages, so a later
 * force that succeeds proves nothing about them (PostgreSQL treats it the same way). Every later call fails with the
 * first cause until the ledger is restarted, and a restart recovers from what is really on the disk.
 */
public final class ForcedWrites {
    private final AtomicLong requested = new AtomicLong();
    private final AtomicLong forces = new AtomicLong();
    /** The log's size up to which {@link #append} has put every entry on stable storage through the journal. */
    private final AtomicLong journaledEnd = new AtomicLong();
    private final Force force;
    /** Where the log's appends are made durable instead of by {@code force}, or null ({@link ReceiptJournal}). */
    private volatile ReceiptJournal journal;
    /** The highest ticket a completed force covers; guarded by {@code this}. */
    private long forced;
    private volatile String failure;
    private volatile Observer observer = (file, nanos) -> { };

    /** The file a forced write forced. */
    public enum File {
        /**
         * A segment of the journal of receipts ({@link ReceiptJournal}): what an answered call waited for, or what the
         * sequencer waited for before it published a checkpoint.
         */
        JOURNAL,
        /**
         * The store's own file: H2's chunks written and {@code fsync}ed (checkpoints, commits the journal does not
         * hold, and the sequencer or a read by id when the journal does not hold what they need).
         */
        STORE
    }

    /** Hears each forced write: the file it forced and how long it took, in nanoseconds. */
    @FunctionalInterface
    public interface Observer {
        void forced(File file, long nanos);
    }

    /** Writes what the store holds unwritten and forces its file; fails when either cannot be done. */
    @FunctionalInterface
    public interface Force {
        void run() throws SQLException;
    }

    private ForcedWrites(Force force) {
        this.force = force;
    }

    /** Forces with {@code force}; the ledger's: every commit is forced before it is answered. */
    public static ForcedWrites by(Force force) {
        return new ForcedWrites(force);
    }

    /**
     * Forces nothing because the database forces each commit itself before the commit returns: PostgreSQL with
     * {@code fsync} on and {@code synchronous_commit} not off ({@link PostgresDatabase} checks both).
     */
    public static ForcedWrites byDatabase() {
        return new ForcedWrites(null);
    }

    /**
     * Forces nothing: what the ledger did before forced writes, kept only so the power-loss test can show that its
     * harness catches a ledger that answers before the disk has the receipt. Never used by the service.
     */
    public static ForcedWrites never() {
        return new ForcedWrites(null);
    }

    /**
     * Returns once every transaction committed on this database before the call is on stable storage: at once when
     * a force that started after the call has covered it, else after a force of its own.
     */
    public void force() throws SQLException {
        if (force == null) {
            return;
        }
        long ticket = requested.incrementAndGet();
        synchronized (this) {
            refuseAfterFailure();
            if (forced >= ticket) {
                return;
            }
            // Every ticket up to here was taken after its commit, and the force below starts after all of them.
            long covers = requested.get();
            long started = System.nanoTime();
            try {
                force.run();
            } catch (SQLException | RuntimeException e) {
                failure = firstLine(e);
                throw e;
            }
            forces.incrementAndGet();
            forced = covers;
            observer.forced(File.STORE, System.nanoTime() - started);
        }
    }

    private void refuseAfterFailure() throws SQLException {
        if (failure != null) {
            throw new SQLException("the store cannot force writes to disk since an earlier failure (" + failure
                    + "); restart the ledger once the disk is healthy");
        }
    }

    private static String firstLine(Exception e) {
        return String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString());
    }

    /**
     * From now on makes the log's appends durable in {@code journal} ({@link #append}) instead of by a force of the
     * store; every other commit is still forced by the store.
     */
    void journalTo(ReceiptJournal journal) {
        this.journal = journal;
    }

    /**
     * Returns once the log's entries of {@code batches}, committed on this database, are on stable storage: appended to
     * the journal and forced there where there is one, else by {@link #force}. Fails as {@link #force} does, and a
     * failed journal write is final too.
     */
    public void append(List<ReceiptJournal.Batch> batches) throws SQLException {
        if (journaled(journal -> journal.append(batches), "the receipts")) {
            // On H2 one batch at a time is appended and journaled, in the log's order (the group commit's append
            // lock): every entry before these is on the disk too.
            journaledEnd.accumulateAndGet(batches.get(batches.size() - 1).end(), Math::max);
        }
    }

    /**
     * Returns once {@code checkpoint}, just committed on this database by the log's sequencer, is on stable storage:
     * its note forced in the journal where there is one (an open after an unclean stop stores it again where the store
     * lost it), else by {@link #force}. A forced write of the store holds every statement back while it takes the
     * store's version, and this one came twice a second under load (docs/benchmarks.md, section 8). Fails as {@link
     * #append} does.
     */
    public void forceCheckpoint(ReceiptJournal.SignedCheckpoint checkpoint) throws SQLException {
        journaled(journal -> journal.appendCheckpoint(checkpoint), "the checkpoint of size " + checkpoint.size());
    }

    /** A write to the journal that returns once it is forced; true when it forced the journal itself. */
    @FunctionalInterface
    private interface JournalWrite {
        boolean to(ReceiptJournal journal) throws IOException;
    }

    /**
     * Makes {@code write} durable in the journal, or where there is none forces the store instead and returns false.
     * A failed journal write is final, as a failed force is; {@code what} names what was written in its message.
     */
    private boolean journaled(JournalWrite write, String what) throws SQLException {
        ReceiptJournal to = journal;
        if (to == null || force == null) {
            force();
            return false;
        }
        requested.incrementAndGet();
        refuseAfterFailure();
        long started = System.nanoTime();
        try {
            if (write.to(to)) {
                forces.incrementAndGet();
                observer.forced(File.JOURNAL, System.nanoTime() - started);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                if (failure == null) {
                    failure = "the journal: " + firstLine(e);
                }
            }
            throw new SQLException(what + " could not be forced to the journal: " + e.getMessage(), e);
        }
    }

    /**
     * Returns once the log's entries before {@code end}, committed on this database, are on stable storage: at once
     * when the journal has forced them ({@link #journaledLogSize}), else after a {@link #force}. Fails as {@link #force}
     * does, and after an earlier failure even when the journal holds them.
     */
    public void forceLog(long end) throws SQLException {
        if (journaledEnd.get() >= end) {
            refuseAfterFailure();
            return;
        }
        force();
    }

    /**
     * The log's size up to which every entry is known to be on stable storage without a forced write of the store:
     * the end of the last batch {@link #append} put in the journal (0 before the first, and where there is no
     * journal). A reader that takes the log's entries only up to it needs no {@link #force} for them.
     */
    public long journaledLogSize() {
        return journaledEnd.get();
    }

    /** Sets what hears each forced write and how long it took (the ledger's metrics). */
    public void observe(Observer observer) {
        this.observer = observer;
    }

    /** Whether this forces writes itself; false where the database forces each commit before it returns. */
    public boolean forcesItself() {
        return force != null;
    }

    /** Forced writes so far; with the commits that asked for one this gives how many each force covered. */
    public long forces() {
        return forces.get();
    }

    /** Commits that asked to be forced so far. */
    public long requests() {
        return requested.get();
    }

    /** Why writes can no longer be forced, or empty while they can. */
    public Optional<String> failure() {
        return Optional.ofNullable(failure);
    }
}
