package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.SQLException;

/** How a transaction that only read ends. */
public final class Reads {
    private Reads() {
    }

    /**
     * Ends a transaction that only read, with a commit: it has nothing to keep or to undo, so a commit and a rollback
     * leave the store the same, but H2 empties a connection's cache of parsed statements at every rollback (a cached
     * query's last result may rest on what was rolled back). With reads ending in rollbacks, every read, and every
     * statement on a pooled connection whose last use was a read, was parsed and planned again (benchmarks.md,
     * section 8). On PostgreSQL the two cost the same.
     */
    public static void end(Connection c) throws SQLException {
        c.commit();
    }
}
