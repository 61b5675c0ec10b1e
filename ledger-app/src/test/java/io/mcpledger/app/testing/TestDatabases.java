package io.mcpledger.app.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.storage.H2Database;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * New, empty databases of each kind the ledger stores in, for tests that run the same storage code on both: an H2
 * file in a temporary directory, or a database on the PostgreSQL server this JVM started ({@link PostgresServer},
 * stopped when the JVM exits; the test is skipped or fails as that class says when there is none). Connections come
 * from pools with auto-commit off, as the ledger's do. {@link #close} closes everything opened.
 */
public final class TestDatabases implements AutoCloseable {
    public enum Kind { H2, POSTGRESQL }

    private static PostgresServer postgres;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** The JDBC URL of each PostgreSQL pool handed out, for a second pool on the same database. */
    private final Map<DataSource, String> urls = new IdentityHashMap<>();

    /** Creates tables in the transaction of a connection. */
    @FunctionalInterface
    public interface Schema {
        void create(Connection c) throws SQLException;
    }

    /**
     * A new database with the tables of {@code schemas}, each created twice, as every start of the ledger does (the
     * second time must change nothing); its connections.
     */
    public DataSource create(Kind kind, int poolSize, Schema... schemas) throws Exception {
        DataSource database = create(kind, poolSize);
        for (int i = 0; i < 2; i++) {
            for (Schema schema : schemas) {
                try (Connection c = database.getConnection()) {
                    schema.create(c);
                    c.commit();
                }
            }
        }
        return database;
    }

    /** A new, empty database; its connections. */
    public DataSource create(Kind kind, int poolSize) throws Exception {
        if (kind == Kind.H2) {
            H2Database h2 = H2Database.open(Files.createTempDirectory("ledger-h2"), poolSize);
            open.add(h2);
            return h2.dataSource();
        }
        return pool(server().newDatabase(), poolSize);
    }

    /**
     * More connections to the database of {@code database}, as another node would have: a pool of their own on
     * PostgreSQL; on H2, whose file one process holds, the same pool.
     */
    public DataSource another(DataSource database, int poolSize) {
        String url = urls.get(database);
        return url == null ? database : pool(url, poolSize);
    }

    private DataSource pool(String url, int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(postgres.user());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(poolSize);
        HikariDataSource pool = new HikariDataSource(config);
        open.add(pool);
        urls.put(pool, url);
        return pool;
    }

    /**
     * A new, empty database on the tests' PostgreSQL server, as a ledger's {@code --database} names it (the test is
     * skipped or fails as {@link PostgresServer} says when there is no server).
     */
    public static DatabaseUrl newPostgresDatabase() throws Exception {
        PostgresServer server = server();
        return DatabaseUrl.parse(server.newDatabase() + "?user=" + server.user(), null);
    }

    /** A connection to {@code url} with auto-commit on, for a test's own statements. */
    public static Connection connect(DatabaseUrl url) throws SQLException {
        return DriverManager.getConnection(url.withoutCredentials());
    }

    private static synchronized PostgresServer server() throws Exception {
        if (postgres == null) {
            PostgresServer started = PostgresServer.startOrSkip();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception e) {
                    System.err.println("the tests' PostgreSQL server did not stop: " + e);
                }
            }));
            postgres = started;
        }
        return postgres;
    }

    @Override
    public void close() throws Exception {
        Collections.reverse(open);
        for (AutoCloseable c : open) {
            c.close();
        }
        open.clear();
    }
}
