package io.mcpledger.app.storage;

import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Puts committed transactions on stable storage, sharing one forced write among every caller that committed before
 * it started (group commit across threads). H2 writes a commit to the file but never forces it; the {@link Force}
 * of {@link H2Database} stores whatever the store has not written yet and then calls {@code FileChannel.force}, so
 * after it returns every transaction committed before the call survives a power loss.
 *
 * <p>A failed force is final: after a failed {@code fsync} the kernel may have dropped the dirty pages, so a later
 * force that succeeds proves nothing about them (PostgreSQL treats it the same way). Every later call fails with the
 * first cause until the ledger is restarted, and a restart recovers from what is really on the disk.
 */
public final class ForcedWrites {
    private final AtomicLong requested = new AtomicLong();
    private final AtomicLong forces = new AtomicLong();
    private final Force force;
    /** The highest ticket a completed force covers; guarded by {@code this}. */
    private long forced;
    private volatile String failure;
    private volatile LongConsumer observer = nanos -> { };

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
            if (failure != null) {
                throw new SQLException("the store cannot force writes to disk since an earlier failure (" + failure
                        + "); restart the ledger once the disk is healthy");
            }
            if (forced >= ticket) {
                return;
            }
            // Every ticket up to here was taken after its commit, and the force below starts after all of them.
            long covers = requested.get();
            long started = System.nanoTime();
            try {
                force.run();
            } catch (SQLException | RuntimeException e) {
                failure = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString());
                throw e;
            }
            forces.incrementAndGet();
            forced = covers;
            observer.accept(System.nanoTime() - started);
        }
    }

    /** Sets what hears how long each forced write took, in nanoseconds (the ledger's metrics). */
    public void observe(LongConsumer observer) {
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
