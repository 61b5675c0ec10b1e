package io.mcpledger.app.demo;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The real ledger service for the demo: started in process on a state directory, stopped and started again on the
 * same state (a replay), and spoken to over HTTP with the bearer credentials its state directory holds.
 */
final class DemoLedger implements AutoCloseable {
    static final String HOST = "127.0.0.1";
    private static final Duration IDLE_EXPIRY = Duration.ofMinutes(30);
    private static final int MAX_ACTIVE_SESSIONS = 10_000;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final Path stateDirectory;
    private final LoadedState state;
    private final Duration checkpointInterval;
    private final Map<Role, String> credentials = new EnumMap<>(Role.class);
    /** The port of the running service: the system picks a free one at every start, as a port just released may be
     * taken by another process before a restart could bind it again (edges find the ledger again by its address). */
    private int port;
    private LedgerServer server;
    private HttpClient http;

    private DemoLedger(Path stateDirectory, LoadedState state, Duration checkpointInterval) {
        this.stateDirectory = stateDirectory;
        this.state = state;
        this.checkpointInterval = checkpointInterval;
    }

    /** Creates the state directory (key, origin, credentials) as {@code init} does; nothing is started yet. */
    static DemoLedger create(Path stateDirectory, Duration checkpointInterval) throws StateException, IOException {
        StateDirectory directory = new StateDirectory(stateDirectory);
        directory.init(null);
        DemoLedger ledger = new DemoLedger(directory.directory(), directory.load(null), checkpointInterval);
        for (Role role : Role.values()) {
            ledger.credentials.put(role, Files.readString(directory.tokenFile(role), StandardCharsets.UTF_8).strip());
        }
        return ledger;
    }

    /** The credential of {@code role}, as the state directory holds it. */
    String credential(Role role) {
        return credentials.get(role);
    }

    Path stateDirectory() {
        return stateDirectory;
    }

    String origin() {
        return state.origin();
    }

    Duration checkpointInterval() {
        return checkpointInterval;
    }

    /** Starts the service, which first replays everything stored in the state; no policy file is given to it. */
    void start() {
        LedgerSettings settings = new LedgerSettings(stateDirectory, null, new HostPort(HOST, 0), null,
                IDLE_EXPIRY, MAX_ACTIVE_SESSIONS, checkpointInterval);
        server = LedgerServer.start(state, settings, Clock.systemUTC());
        port = server.port();
        // A new client per run of the service: keep-alive connections to the stopped one died with it.
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(REQUEST_TIMEOUT).build();
    }

    /** Stops accepting requests and closes the store; every answered receipt is stored. */
    void stop() {
        if (server != null) {
            server.close();
            server = null;
            http = null;
        }
    }

    String address() {
        return HOST + ":" + port;
    }

    /**
     * Sends one request with {@code role}'s credential ({@code null}: none), the client binding header when
     * {@code clientTokenSha256} is not null, and {@code body} (null: none) as {@code contentType}.
     */
    Reply send(Role role, String method, String path, String clientTokenSha256, String contentType, String body)
            throws IOException, InterruptedException {
        if (server == null) {
            throw new IllegalStateException("the ledger is not running");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + address() + path))
                .timeout(REQUEST_TIMEOUT)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (role != null) {
            request.header("Authorization", "Bearer " + credentials.get(role));
        }
        if (clientTokenSha256 != null) {
            request.header("Client-Token-Sha256", clientTokenSha256);
        }
        if (body != null) {
            request.header("Content-Type", contentType);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return Reply.of(response.statusCode(), response.body());
    }

    @Override
    public void close() {
        stop();
    }
}
