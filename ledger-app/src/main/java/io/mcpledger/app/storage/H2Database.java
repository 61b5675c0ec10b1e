package io.mcpledger.app.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.api.ErrorCode;

/** The ledger's embedded H2 file database ({@code <stateDir>/ledger.mv.db}) behind a small connection pool. */
public final class H2Database implements AutoCloseable {
    /** The name of the database file inside the state directory. */
    public static final String FILE_NAME = "ledger.mv.db";
    /** Enough for two command workers, the log's sequencer and the HTTP readers of receipts, entries and tiles. */
    public static final int DEFAULT_POOL_SIZE = 6;

    private static final String BASE_NAME = "ledger";
    /**
     * WRITE_DELAY=0 writes every commit to the file before the commit returns: with H2's default of 500 ms,
     * {@code kill -9} lost acknowledged events in every try here. H2 never fsyncs, so this survives process death,
     * not power loss. DB_CLOSE_ON_EXIT=FALSE leaves closing to {@link #close()}, after Axon has stopped writing,
     * instead of H2's own shutdown hook racing it.
     */
    private static final String SETTINGS = ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";

    private final Path stateDirectory;
    private final HikariDataSource dataSource;

    private H2Database(Path stateDirectory, HikariDataSource dataSource) {
        this.stateDirectory = stateDirectory;
        this.dataSource = dataSource;
    }

    /** Opens the database with {@link #DEFAULT_POOL_SIZE} connections, creating the file if it is missing. */
    public static H2Database open(Path stateDirectory) throws StorageException {
        return open(stateDirectory, DEFAULT_POOL_SIZE);
    }

    /** Opens the database with {@code poolSize} connections, creating the file if it is missing. */
    public static H2Database open(Path stateDirectory, int poolSize) throws StorageException {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
        }
        Path dir = stateDirectory.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new StorageException("the ledger state directory " + dir + " does not exist; run 'ledger-app init --state "
                    + dir + "' first");
        }
        // H2 reads everything after a ';' in the URL as a setting, so such a path would change the database's settings.
        if (dir.toString().contains(";")) {
            throw new StorageException("the ledger state directory " + dir + " contains ';', which H2 cannot open; "
                    + "use a path without ';'");
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("ledger-h2");
        config.setDriverClassName("org.h2.Driver");
        config.setJdbcUrl("jdbc:h2:file:" + dir.resolve(BASE_NAME) + SETTINGS);
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.setAutoCommit(false);
        try {
            return new H2Database(dir, new HikariDataSource(config));
        } catch (RuntimeException e) {
            throw translate(dir, e);
        }
    }

    private static StorageException translate(Path dir, RuntimeException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                if (sql.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1) {
                    return new StateInUseException("the ledger state at " + dir + " is in use by another process; "
                            + "stop that process or pass a different --state directory", failure);
                }
                return new StorageException("cannot open the ledger database " + dir.resolve(FILE_NAME) + ": "
                        + firstLine(sql.getMessage()) + "; if the file is damaged, restore it from a backup", failure);
            }
        }
        return new StorageException("cannot open the ledger database " + dir.resolve(FILE_NAME) + ": "
                + firstLine(String.valueOf(failure.getMessage())), failure);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }

    /** The pool; its connections start with auto-commit off. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The database file, {@code <stateDir>/ledger.mv.db}. */
    public Path file() {
        return stateDirectory.resolve(FILE_NAME);
    }

    /** Closes every pooled connection; H2 then closes the database and releases its file lock. */
    @Override
    public void close() {
        dataSource.close();
    }
}
