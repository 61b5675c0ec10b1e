package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What differs between the databases the ledger stores in, H2 (the embedded default) and PostgreSQL, as far as the
 * ledger's SQL reaches them: so far the type of stored bytes.
 */
enum SqlDialect {
    H2("VARBINARY"),
    POSTGRESQL("BYTEA");

    private final String bytes;

    SqlDialect(String bytes) {
        this.bytes = bytes;
    }

    /** The dialect of the database behind {@code c}. */
    static SqlDialect of(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName();
        return switch (product) {
            case "H2" -> H2;
            case "PostgreSQL" -> POSTGRESQL;
            default -> throw new SQLException("the ledger stores in H2 or PostgreSQL, not in " + product);
        };
    }

    /** The column type of stored bytes (receipt lines, documents). */
    String bytes() {
        return bytes;
    }
}
