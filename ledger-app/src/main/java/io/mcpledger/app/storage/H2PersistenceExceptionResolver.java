package io.mcpledger.app.storage;

import java.sql.SQLException;
import org.axonframework.common.jdbc.PersistenceExceptionResolver;

/**
 * Tells Axon which H2 failures are duplicate keys, so a second event at the same aggregate sequence number becomes a
 * {@code ConcurrencyException} (or {@code AggregateStreamCreationException} for sequence 0) rather than a generic
 * {@code EventStoreException}. Axon's default {@code JdbcSQLErrorCodesResolver} looks only at causes, but
 * {@code JdbcEventStorageEngine} appends in a batch and H2 reports a failed batch as a {@code BatchUpdateException}
 * with no cause: the violation is only its SQL state, and its next exception.
 */
public final class H2PersistenceExceptionResolver implements PersistenceExceptionResolver {
    /** The resolver to pass to {@code JdbcEventStorageEngine.Builder.persistenceExceptionResolver}. */
    public static final H2PersistenceExceptionResolver INSTANCE = new H2PersistenceExceptionResolver();

    /** SQL:2011's "unique violation"; H2 also uses it as its error code. Other integrity violations are not. */
    private static final String UNIQUE_VIOLATION = "23505";

    private H2PersistenceExceptionResolver() {
    }

    @Override
    public boolean isDuplicateKeyViolation(Exception exception) {
        for (Throwable t = exception; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException e = sql; e != null; e = e.getNextException()) {
                    if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
