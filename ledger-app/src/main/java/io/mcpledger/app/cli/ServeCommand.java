package io.mcpledger.app.cli;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFileException;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.storage.DiskSpace;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.query.LedgerProjector;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code serve}: creates the state directory on first start, checks every flag and the policy file
 * before anything is appended, then runs the ledger inside a Micronaut context until SIGTERM.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Start the ledger's HTTP service.")
public final class ServeCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
    /** The longest commit linger: 10 ms, beyond which a lone command's wait would dwarf its forced write. */
    static final int MAX_COMMIT_LINGER_US = 10_000;

    @Option(names = "--state", defaultValue = "${env:LEDGER_STATE:-./state/ledger}",
            description = "State directory; default $LEDGER_STATE, else state/ledger in the working directory")
    Path state;

    @Option(names = "--listen", defaultValue = "${env:LEDGER_LISTEN:-127.0.0.1:4320}", converter = HostPort.Converter.class,
            description = "HOST:PORT to listen on (env LEDGER_LISTEN, default ${DEFAULT-VALUE}).")
    HostPort listen;

    @Option(names = "--policy", defaultValue = "${env:LEDGER_POLICY}",
            description = "Policy file (YAML or JSON) to activate when it differs from the active one (env LEDGER_POLICY).")
    Path policy;

    @Option(names = "--origin", defaultValue = "${env:LEDGER_ORIGIN}",
            description = "The log's origin; fixed when the state is created (env LEDGER_ORIGIN).")
    String origin;

    @Option(names = "--session-idle-expiry", defaultValue = "${env:LEDGER_SESSION_IDLE_EXPIRY:-30m}",
            converter = Durations.class, description = "Idle time after which a session expires (default ${DEFAULT-VALUE}).")
    Duration idleExpiry;

    @Option(names = "--max-active-sessions", defaultValue = "${env:LEDGER_MAX_ACTIVE_SESSIONS:-10000}",
            description = "Active sessions allowed at once (default ${DEFAULT-VALUE}).")
    int maxActiveSessions;

    @Option(names = "--checkpoint-interval", defaultValue = "${env:LEDGER_CHECKPOINT_INTERVAL:-1s}",
            converter = Durations.class, description = "Longest time before a receipt is integrated (default ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(names = "--cache-sessions", defaultValue = "${env:LEDGER_CACHE_SESSIONS:-20000}",
            description = "Session states the projections keep in memory, read or folded last (default ${DEFAULT-VALUE}).")
    long cacheSessions;

    @Option(names = "--cache-calls", defaultValue = "${env:LEDGER_CACHE_CALLS:-50000}",
            description = "Call records the projections keep in memory, read or folded last (default ${DEFAULT-VALUE}).")
    long cacheCalls;

    @Option(names = "--cache-tiles", defaultValue = "${env:LEDGER_CACHE_TILES:-"
            + LedgerSettings.StoreCaches.DEFAULT_TILES + "}",
            description = "Tiles of the transparency log (8 KiB each) kept in memory, read or written last"
                    + " (default ${DEFAULT-VALUE}).")
    int cacheTiles;

    @Option(names = "--store-cache-mb", defaultValue = "${env:LEDGER_STORE_CACHE_MB:-"
            + LedgerSettings.StoreCaches.DEFAULT_PAGE_MEGABYTES + "}",
            description = "Megabytes of the store's pages kept in memory (default ${DEFAULT-VALUE}).")
    int storeCacheMb;

    @Option(names = "--disk-reserve-mb", defaultValue = "${env:LEDGER_DISK_RESERVE_MB:-"
            + (DiskSpace.DEFAULT_RESERVE_BYTES >> 20) + "}",
            description = "Megabytes kept free on the H2 file's disk: under them appends are refused (503"
                    + " storage_full) while reads go on, and taken again once space returns (default ${DEFAULT-VALUE};"
                    + " 0 never refuses; not used with --database).")
    long diskReserveMb;

    @Option(names = "--commit-linger-us", defaultValue = "${env:LEDGER_COMMIT_LINGER_US:-0}",
            description = "Microseconds a command worker holding a single command waits for a second one to commit"
                    + " with it: fewer, fuller commits under steady load, up to this much more for a lone command"
                    + " (default ${DEFAULT-VALUE}: no wait; at most " + MAX_COMMIT_LINGER_US + ").")
    int commitLingerUs;

    @CommandLine.Mixin
    DatabaseOption database = new DatabaseOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final CountDownLatch stopped = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        String problem = checkLimits();
        if (problem == null) {
            problem = checkListen(listen);
        }
        if (problem != null) {
            return fail(problem);
        }
        PolicyDocument document = null;
        LoadedState loadedState;
        DatabaseUrl url;
        try {
            url = database.url();
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        try {
            if (policy != null) {
                document = PolicyFiles.read(policy);
            }
            StateDirectory directory = new StateDirectory(state);
            directory.init(origin);
            loadedState = directory.load(origin);
        } catch (PolicyFileException | StateException e) {
            return fail(e.getMessage());
        }
        LedgerSettings settings = new LedgerSettings(state, origin, listen, document, idleExpiry, maxActiveSessions,
                checkpointInterval, new LedgerProjector.Caches(cacheSessions, cacheCalls),
                new LedgerSettings.StoreCaches(storeCacheMb, cacheTiles), url).withDiskReserve(diskReserveMb << 20)
                .withCommitLinger(Duration.ofNanos(commitLingerUs * 1_000L));
        LedgerServer server;
        try {
            server = LedgerServer.start(loadedState, settings, Clock.systemUTC());
        } catch (RuntimeException e) {
            return fail(rootMessage(e));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            spec.commandLine().getOut().println("Stopped: " + state + ". Every answered receipt is stored.");
            spec.commandLine().getOut().flush();
            stopped.countDown();
        }, "ledger-shutdown"));
        MemoryReclaimCheck.warning().ifPresent(LOG::warn);
        spec.commandLine().getOut().println("Ready: " + state + (url == null ? "" : " on " + url) + ". Listening on "
                + server.host() + ":" + server.port() + ". Credentials: " + state.resolve(StateDirectory.CREDENTIALS)
                + "/");
        spec.commandLine().getOut().flush();
        stopped.await();
        return LedgerMain.EXIT_OK;
    }

    /**
     * Whether the ledger can listen where it is told to, asked before anything is created (a state directory with a
     * new key for a ledger that cannot start is worse than none). Another process may still take the port in between;
     * then the start fails after all, as it did before this check.
     */
    static String checkListen(HostPort listen) {
        if (listen.port() == 0) {
            return null;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(listen.host(), listen.port()));
            return null;
        } catch (BindException e) {
            String why = String.valueOf(e.getMessage());
            return "cannot listen on " + listen.host() + ":" + listen.port() + ": " + (why.contains("in use")
                    ? "another process is listening there; stop it or pass another --listen"
                    : why.toLowerCase(Locale.ROOT) + "; pass an address of this machine to --listen");
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return "cannot listen on " + listen.host() + ":" + listen.port() + ": " + e.getMessage();
        }
    }

    /** Durations are already positive ({@link Durations} refuses 0); the session cap and the caches are left to check. */
    private String checkLimits() {
        if (diskReserveMb < 0 || diskReserveMb > (Long.MAX_VALUE >> 20)) {
            return "--disk-reserve-mb must be 0 or more, got " + diskReserveMb;
        }
        if (maxActiveSessions < 1) {
            return "--max-active-sessions must be at least 1, got " + maxActiveSessions;
        }
        if (cacheSessions < 0) {
            return "--cache-sessions must be at least 0, got " + cacheSessions;
        }
        if (cacheCalls < 0) {
            return "--cache-calls must be at least 0, got " + cacheCalls;
        }
        if (cacheTiles < 0) {
            return "--cache-tiles must be at least 0, got " + cacheTiles;
        }
        if (commitLingerUs < 0 || commitLingerUs > MAX_COMMIT_LINGER_US) {
            return "--commit-linger-us must be between 0 and " + MAX_COMMIT_LINGER_US + ", got " + commitLingerUs;
        }
        if (storeCacheMb < 1) {
            return "--store-cache-mb must be at least 1, got " + storeCacheMb;
        }
        return null;
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("ledger-app serve: " + message);
        return LedgerMain.EXIT_USAGE;
    }

    /**
     * Micronaut wraps start-up failures; the ledger's own exception says what to fix (a state in use by
     * another process), else the innermost cause does.
     */
    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (!(cause instanceof StorageException) && cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
