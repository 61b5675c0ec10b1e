package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** How a transaction that only reads starts and ends. */
public final class Reads {
    private Reads() {
    }

    /**
     * A connection of {@code database} for reads that need no cursor (no {@code setFetchSize}), ended by {@link #end}.
     * On PostgreSQL it is in auto-commit: each statement then runs on a snapshot of its own, as it would in the
     * READ COMMITTED transaction the pool otherwise opens, but without the transaction's COMMIT, a second round trip
     * per read (a new call's point read is one per admission). On H2 it stays in the pool's mode, a transaction that
     * {@link #end} commits.
     */
    public static Connection connection(DataSource database) throws SQLException {
        Connection c = database.getConnection();
        try {
            if (SqlDialect.of(c) == SqlDialect.POSTGRESQL) {
                c.setAutoCommit(true);
            }
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Ends a transaction that only read, with a commit: it has nothing to keep or to undo, so a commit and a rollback
     * leave the store the same, but H2 empties a connection's cache of parsed statements at every rollback (a cached
     * query's last result may rest on what was rolled back). With reads ending in rollbacks, every read, and every
     * statement on a pooled connection whose last use was a read, was parsed and planned again (benchmarks.md,
     * section 8). A connection in auto-commit ({@link #connection} on PostgreSQL) has no transaction to end.
     */
    public static void end(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }
}
