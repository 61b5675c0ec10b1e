package io.mcpledger.app.storage;

import java.lang.Thread.UncaughtExceptionHandler;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.engine.Database;
import org.h2.message.DbException;
import org.h2.mvstore.MVStore;
import org.h2.util.Utils;

/**
 * Where H2 shuts its database down after its store failed to write: on a thread of its own, not on the thread whose
 * write failed.
 *
 * <p>H2's store hands a failed write ("panic") to the handler H2's database gave it, which records the failure and,
 * unless the failing thread is one of H2's own, runs {@code Database.shutdownImmediately} on it. That thread may hold
 * the store's lock (a commit writes its chunk under it), and the shutdown waits for the database's monitor. Another
 * statement's thread that sees the shutdown begin takes that monitor and closes the store, which waits for the
 * store's lock: a deadlock, and the ledger hung instead of refusing (a {@code PowerLossTest} run, 2026-12-06). The
 * handler installed here records the failure on the failing thread, as H2's does, and runs the shutdown on a new
 * thread, which takes the monitor only once the failing thread has closed the store (H2 has it do so right after the
 * handler) and needs the store's lock for nothing more.
 */
final class H2Shutdown {
    /** {@code MVStore.backgroundExceptionHandler}: public, but final, so set past the language's check. */
    private static final Field HANDLER = H2Internals.field(MVStore.class, "backgroundExceptionHandler");

    /** How long the shutdown waits for the failing thread to close the store; past it, it closes the store itself. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private H2Shutdown() {
    }

    /**
     * Gives {@code database}'s store the handler that shuts the database down aside: at the open, before the ledger
     * writes anything.
     */
    static void aside(Database database) {
        MVStore store = database.getStore().getMvStore();
        try {
            HANDLER.set(store, handler(database));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot replace H2's handler of a failed write: " + e.getMessage(), e);
        }
    }

    /** The handler: {@code database}'s own, but for the thread of the shutdown. */
    private static UncaughtExceptionHandler handler(Database database) {
        AtomicBoolean started = new AtomicBoolean();
        return (thread, failure) -> {
            database.setBackgroundException(DbException.convert(failure));
            // H2 hands a failure to the thread that met it and, when that was H2's own writer, to each thread that
            // leaves the store's lock after it; as in H2's handler, the first of the ledger's threads shuts down, once.
            if (!Utils.isBackgroundThread() && started.compareAndSet(false, true)) {
                Thread shutdown = new Thread(() -> shutDownOnceClosed(database), "ledger-h2-shutdown");
                shutdown.setDaemon(true);
                shutdown.start();
            }
        };
    }

    /**
     * Waits for the thread handed the failure to close the store, which H2 has it do right after the handler (it is
     * one of the ledger's threads), then shuts the database down. Two threads closing the store at once trip H2's
     * check that the store is open when it takes the store's lock (an {@code AssertionError} with assertions on).
     */
    private static void shutDownOnceClosed(Database database) {
        MVStore store = database.getStore().getMvStore();
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (!store.isClosed() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        database.shutdownImmediately();
    }
}
