package io.mcpledger.app.cli;

import io.mcpledger.app.storage.DatabaseUrl;
import picocli.CommandLine.Option;

/**
 * {@code --database URL} of {@code serve}, {@code export} and {@code rebuild}: a PostgreSQL JDBC URL that several
 * nodes share, or none for the state directory's H2 file. The password is taken from the URL or from
 * {@code LEDGER_DATABASE_PASSWORD}, and never printed.
 */
public final class DatabaseOption {
    @Option(names = "--database", paramLabel = "URL", defaultValue = "${env:LEDGER_DATABASE}",
            description = "PostgreSQL JDBC URL shared by several ledger nodes, e.g. jdbc:postgresql://HOST:5432/DB?user=U"
                    + " (env LEDGER_DATABASE; password in the URL or in LEDGER_DATABASE_PASSWORD); default: the state"
                    + " directory's H2 file.")
    String database;

    /** The URL, or null for H2. */
    public DatabaseUrl url() {
        if (database == null || database.isBlank()) {
            return null;
        }
        return DatabaseUrl.parse(database, System.getenv(DatabaseUrl.PASSWORD_VARIABLE));
    }
}
