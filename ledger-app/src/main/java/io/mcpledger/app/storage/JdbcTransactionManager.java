package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.ConnectionWrapperFactory;
import org.axonframework.common.jdbc.JdbcException;
import org.axonframework.common.jdbc.JdbcUtils;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * An Axon {@link TransactionManager} for plain JDBC: every transaction is one pooled connection, and the
 * {@link #connectionProvider()} hands that connection to Axon's JDBC components while the transaction runs.
 *
 * <p>Exactly one party owns each JDBC transaction and commits it once:
 * <ul>
 *   <li>inside a unit of work, its <em>root</em>: the transaction is opened on first use (by
 *       {@link #startTransaction()} or by the connection provider), committed in the root's commit phase (after
 *       prepare-commit, where the event store appends, and before after-commit, where a command's answer is sent) and
 *       rolled back when the root rolls back. Nested units, and {@code executeInTransaction} calls inside the unit,
 *       join it; so a batch of commands in nested units under one root is stored by one commit;</li>
 *   <li>outside a unit of work (or once its root is past prepare-commit), the caller of
 *       {@link #startTransaction()}: the connection is bound to the thread until that transaction commits or rolls
 *       back, and every transaction started meanwhile on the thread, including a unit of work started inside it,
 *       joins it.</li>
 * </ul>
 * A joining transaction's commit and rollback do nothing: the owner decides. The owner's commit returns only once
 * {@link ForcedWrites} has put it on stable storage, so nothing that follows a commit (an answer, a projection's
 * fold) ever acts on a transaction a power loss could take back. Axon's
 * {@code UnitOfWorkAwareConnectionProviderWrapper} is deliberately not used: it commits in the commit phase of the
 * unit that happened to fetch the connection first, which for a nested unit is before its root has decided, and it
 * does nothing for the transactions Axon's event processors start outside units of work.
 */
public final class JdbcTransactionManager implements TransactionManager {
    private static final Transaction JOINED = new Transaction() {
        @Override
        public void commit() {
        }

        @Override
        public void rollback() {
        }
    };

    private final DataSource dataSource;
    private final ForcedWrites forcedWrites;
    /** Per instance, so two managers on two databases never share a connection through one unit of work. */
    private final String resourceKey = JdbcTransactionManager.class.getName() + ".transaction@"
            + Integer.toHexString(System.identityHashCode(this));
    private final ThreadLocal<JdbcTransaction> threadTransaction = new ThreadLocal<>();
    private final ConnectionProvider connectionProvider = this::currentConnection;

    public JdbcTransactionManager(DataSource dataSource, ForcedWrites forcedWrites) {
        this.dataSource = dataSource;
        this.forcedWrites = forcedWrites;
    }

    /**
     * The connection provider to give {@code JdbcEventStorageEngine}, {@code JdbcTokenStore} and any other Axon JDBC
     * component: within a transaction it returns the transaction's connection (their {@code close()} and
     * {@code commit()} calls on it do nothing); inside a unit of work with no transaction yet it opens one owned by
     * the root; anywhere else it returns a pooled connection in auto-commit mode, so each statement commits itself.
     */
    public ConnectionProvider connectionProvider() {
        return connectionProvider;
    }

    @Override
    public Transaction startTransaction() {
        if (boundTransaction() != null || unitTransaction() != null) {
            return JOINED;
        }
        JdbcTransaction transaction = begin();
        threadTransaction.set(transaction);
        return new Transaction() {
            @Override
            public void commit() {
                try {
                    transaction.commit();
                } finally {
                    unbind(transaction);
                }
            }

            @Override
            public void rollback() {
                try {
                    transaction.rollback();
                } finally {
                    unbind(transaction);
                }
            }
        };
    }

    /**
     * Has the transaction under way make {@code batch}, the log's entries it inserted ({@link LedgerLog#insert}),
     * durable through {@link ForcedWrites#append} when it commits: in the store's journal, where it has one, instead
     * of by a forced write of the whole store.
     */
    public void journal(ReceiptJournal.Batch batch) {
        JdbcTransaction transaction = boundTransaction();
        if (transaction == null) {
            transaction = unitTransaction();
        }
        if (transaction == null) {
            throw new IllegalStateException("the log's entries were inserted outside a transaction");
        }
        transaction.journal(batch);
    }

    private Connection currentConnection() throws SQLException {
        JdbcTransaction transaction = boundTransaction();
        if (transaction == null) {
            transaction = unitTransaction();
        }
        if (transaction != null) {
            return transaction.handle();
        }
        Connection connection = dataSource.getConnection();
        try {
            // The pool hands out connections with auto-commit off; without a transaction nobody would commit, and the
            // pool rolls back uncommitted work when the connection is closed. The pool restores the mode on return.
            connection.setAutoCommit(true);
        } catch (SQLException e) {
            JdbcUtils.closeQuietly(connection);
            throw e;
        }
        return connection;
    }

    private JdbcTransaction boundTransaction() {
        JdbcTransaction transaction = threadTransaction.get();
        if (transaction != null && transaction.isCompleted()) {
            // Completed on another thread, which could not clear this thread's binding.
            threadTransaction.remove();
            return null;
        }
        return transaction;
    }

    private void unbind(JdbcTransaction transaction) {
        if (threadTransaction.get() == transaction) {
            threadTransaction.remove();
        }
    }

    /** The root unit of work's transaction, opened now if the root has not started committing yet. */
    private JdbcTransaction unitTransaction() {
        if (!CurrentUnitOfWork.isStarted()) {
            return null;
        }
        UnitOfWork<?> root = CurrentUnitOfWork.get().root();
        JdbcTransaction existing = root.getResource(resourceKey);
        if (existing != null && !existing.isCompleted()) {
            return existing;
        }
        if (root.phase().isAfter(UnitOfWork.Phase.PREPARE_COMMIT)) {
            return null;
        }
        JdbcTransaction transaction = begin();
        root.resources().put(resourceKey, transaction);
        root.onCommit(u -> transaction.commit());
        root.onRollback(u -> transaction.rollback());
        // Rolls back only if neither of the above ran, so the connection always returns to the pool.
        root.onCleanup(u -> {
            transaction.rollback();
            u.resources().remove(resourceKey, transaction);
        });
        return transaction;
    }

    private JdbcTransaction begin() {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new JdbcException("Could not get a database connection to start a transaction: " + e.getMessage(), e);
        }
        try {
            if (connection.getAutoCommit()) {
                connection.setAutoCommit(false);
            }
        } catch (SQLException e) {
            JdbcUtils.closeQuietly(connection);
            throw new JdbcException("Could not start a transaction: " + e.getMessage(), e);
        }
        return new JdbcTransaction(connection, forcedWrites);
    }

    /** One JDBC transaction on one pooled connection; the connection returns to the pool when it completes. */
    private static final class JdbcTransaction {
        private final Connection connection;
        private final Connection handle;
        private final ForcedWrites forcedWrites;
        private volatile boolean completed;
        /** The log's entries this transaction inserted, made durable at its commit. */
        private final List<ReceiptJournal.Batch> journaled = new ArrayList<>(1);

        JdbcTransaction(Connection connection, ForcedWrites forcedWrites) {
            this.connection = connection;
            this.forcedWrites = forcedWrites;
            this.handle = ConnectionWrapperFactory.wrap(connection, new ConnectionWrapperFactory.NoOpCloseHandler());
        }

        Connection handle() {
            if (completed) {
                throw new IllegalStateException("the transaction has already completed");
            }
            return handle;
        }

        boolean isCompleted() {
            return completed;
        }

        synchronized void journal(ReceiptJournal.Batch batch) {
            if (completed) {
                throw new IllegalStateException("the transaction has already completed");
            }
            journaled.add(batch);
        }

        synchronized void commit() {
            if (completed) {
                throw new IllegalStateException("the transaction has already been committed or rolled back");
            }
            try {
                connection.commit();
            } catch (SQLException e) {
                rollbackQuietly();
                JdbcException failure = new JdbcException("Could not commit the transaction, it was rolled back: "
                        + e.getMessage(), e);
                releaseQuietly(failure);
                throw failure;
            }
            try {
                if (journaled.isEmpty()) {
                    forcedWrites.force();
                } else {
                    forcedWrites.append(journaled);
                }
            } catch (SQLException | RuntimeException | Error e) {
                UnforcedCommitException unforced = new UnforcedCommitException("the transaction was committed but"
                        + " could not be forced to disk, so whether it survives a power loss is unknown: "
                        + e.getMessage(), e);
                // Returning the connection may fail too on a store that failed (H2 throws AssertionError): that must
                // not replace this failure, or the commit would look done and its callers would be told so.
                releaseQuietly(unforced);
                throw unforced;
            }
            // Forced: the transaction is on stable storage, whatever returning its connection does.
            releaseQuietly(null);
        }

        /** Does nothing once completed, so a rollback after a failed commit or at cleanup is harmless. */
        synchronized void rollback() {
            if (completed) {
                return;
            }
            try {
                connection.rollback();
            } catch (SQLException e) {
                throw new JdbcException("Could not roll back the transaction: " + e.getMessage(), e);
            } finally {
                release();
            }
        }

        private void rollbackQuietly() {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // The pool rolls back again when the connection is returned, so nothing is left half-done.
            }
        }

        private void release() {
            completed = true;
            JdbcUtils.closeQuietly(connection);
        }

        /**
         * Returns the connection, keeping whatever that throws (an {@code Error} from a failed store included) as a
         * suppressed exception of {@code failure}, or dropping it when the transaction is already forced.
         */
        private void releaseQuietly(Throwable failure) {
            try {
                release();
            } catch (RuntimeException | Error e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }
}
