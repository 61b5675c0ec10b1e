package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * What differs between the databases the ledger stores in, H2 (the embedded default) and PostgreSQL, as far as the
 * ledger's SQL reaches them: the types of stored bytes and of small integer codes, the order of text, and how a row
 * is written over the one with its key. Everything else the ledger's SQL uses is common to both.
 */
public enum SqlDialect {
    H2,
    POSTGRESQL;

    /** The dialect of the database behind {@code c}. */
    public static SqlDialect of(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName();
        return switch (product) {
            case "H2" -> H2;
            case "PostgreSQL" -> POSTGRESQL;
            default -> throw new SQLException("the ledger stores in H2 or PostgreSQL, not in " + product);
        };
    }

    /**
     * Holds, until {@code c}'s transaction ends, the lock under which the ledger creates its shared tables, so that
     * nodes starting together on an empty PostgreSQL database create them once (PostgreSQL's {@code CREATE TABLE IF
     * NOT EXISTS} can fail when two run at once). On H2 one process holds the file: nothing to lock.
     */
    public void lockSchema(Connection c) throws SQLException {
        if (this == POSTGRESQL) {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
                s.setInt(1, PostgresDatabase.LOCK_CLASS);
                s.setInt(2, PostgresDatabase.SCHEMA_LOCK);
                s.execute();
            }
        }
    }

    /** The column type of stored bytes (receipt lines, documents). */
    public String bytes() {
        return this == H2 ? "VARBINARY" : "BYTEA";
    }

    /** The column type of at most {@code length} stored bytes. */
    public String bytes(int length) {
        return this == H2 ? "VARBINARY(" + length + ")" : "BYTEA";
    }

    /** The column type of a small integer code (a call's status). */
    public String smallInteger() {
        return this == H2 ? "TINYINT" : "SMALLINT";
    }

    /**
     * The column type of text of at most {@code length} characters that is ordered as Java orders strings: H2 compares
     * UTF-16 code units; PostgreSQL, whose order otherwise follows the database's locale, compares bytes under the
     * "C" collation, the same order for the ASCII ids the ledger sorts (sessions are listed and digested in id order).
     */
    public String text(int length) {
        return "VARCHAR(" + length + ")" + (this == H2 ? "" : " COLLATE \"C\"");
    }

    /**
     * A statement that writes one row of {@code columns} (all given as parameters, in that order) into {@code table},
     * replacing the row with the same values of the first {@code keys} columns if there is one.
     */
    public String upsert(String table, int keys, String... columns) {
        String names = String.join(", ", columns);
        String key = String.join(", ", Arrays.copyOf(columns, keys));
        String parameters = "?" + ", ?".repeat(columns.length - 1);
        if (this == H2) {
            return "MERGE INTO " + table + " (" + names + ") KEY (" + key + ") VALUES (" + parameters + ")";
        }
        StringBuilder set = new StringBuilder();
        for (int i = keys; i < columns.length; i++) {
            set.append(set.isEmpty() ? "" : ", ").append(columns[i]).append(" = EXCLUDED.").append(columns[i]);
        }
        return "INSERT INTO " + table + " (" + names + ") VALUES (" + parameters + ") ON CONFLICT (" + key + ") DO "
                + (set.isEmpty() ? "NOTHING" : "UPDATE SET " + set);
    }
}
