package io.mcpledger.app.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server of the tests' own: {@code initdb} in a temporary directory, started on a free port of the
 * loopback interface with trust authentication, stopped and deleted by {@link #close}. Its binaries are those named by
 * {@code LEDGER_TEST_PG_BIN}, else the newest under {@code /usr/lib/postgresql/<version>/bin}. As root (PostgreSQL
 * refuses to run as root) its commands run as the {@code postgres} system user.
 *
 * <p>Where no binaries are found, {@link #startOrSkip} skips the calling test and says why, unless
 * {@code LEDGER_TEST_POSTGRES=required} (as {@code .ci/run} sets): then it fails, so that CI never passes without them.
 */
public final class PostgresServer implements AutoCloseable {
    /** The environment variable that makes a missing PostgreSQL a failure instead of a skip. */
    public static final String REQUIRED = "LEDGER_TEST_POSTGRES";
    private static final String USER = "ledger";
    private static final AtomicInteger DATABASES = new AtomicInteger();
    /** Whether this JVM has said on the console that the PostgreSQL tests are skipped. */
    private static final AtomicBoolean SAID_SKIPPED = new AtomicBoolean();

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres;

    private PostgresServer(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** The server's binaries, if this machine has them. */
    public static Optional<Path> binaries() {
        String named = System.getenv("LEDGER_TEST_PG_BIN");
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named)).filter(PostgresServer::hasServer);
        }
        Path installed = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(installed)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(installed)) {
            return versions.map(v -> v.resolve("bin")).filter(PostgresServer::hasServer)
                    .max(Comparator.comparing(PostgresServer::version));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean hasServer(Path bin) {
        return Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl"));
    }

    private static int version(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Starts a server, or skips the calling test (fails it where PostgreSQL is required) when there is none. */
    public static PostgresServer startOrSkip() throws IOException, InterruptedException {
        Optional<Path> bin = binaries();
        if (bin.isEmpty()) {
            String why = "no PostgreSQL server binaries found (looked in LEDGER_TEST_PG_BIN and /usr/lib/postgresql/*/bin)";
            if ("required".equals(System.getenv(REQUIRED))) {
                throw new IllegalStateException("PostgreSQL is required here (" + REQUIRED + "=required) but " + why);
            }
            String skipped = "PostgreSQL tests skipped: " + why + "; install PostgreSQL or set LEDGER_TEST_PG_BIN to"
                    + " run them";
            if (!SAID_SKIPPED.getAndSet(true)) {
                System.err.println(skipped);
            }
            Assumptions.abort(skipped);
        }
        return start(bin.get());
    }

    /** Starts a server from the binaries in {@code bin}. */
    public static PostgresServer start(Path bin) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("ledger-pg");
        boolean asPostgres = "root".equals(System.getProperty("user.name"));
        if (asPostgres) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PostgresServer server = new PostgresServer(bin, dir, port, asPostgres);
        server.run("initdb", "-D", dir.resolve("data").toString(), "-A", "trust", "-U", USER, "-E", "UTF8",
                "--no-instructions");
        server.run("pg_ctl", "-D", dir.resolve("data").toString(), "-l", dir.resolve("server.log").toString(), "-w",
                "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1", "start");
        return server;
    }

    /** A new, empty database on this server; its JDBC URL. */
    public String newDatabase() throws SQLException {
        String name = "ledger_test_" + DATABASES.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url("postgres"), USER, "");
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return url(name);
    }

    public String user() {
        return USER;
    }

    private String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    private void run(String command, String... args) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        if (asPostgres) {
            line.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        line.add(bin.resolve(command).toString());
        line.addAll(List.of(args));
        Path output = Files.createTempFile("ledger-pg-" + command, ".log");
        Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(command + " did not finish in 120 s: " + Files.readString(output));
        }
        String said = Files.readString(output);
        Files.delete(output);
        if (process.exitValue() != 0) {
            throw new IOException(command + " exited with " + process.exitValue() + ": " + said);
        }
    }

    /** Stops the server at once and deletes its files. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            run("pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
