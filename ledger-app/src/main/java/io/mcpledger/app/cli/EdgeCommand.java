package io.mcpledger.app.cli;

import io.mcpledger.app.FileErrors;
import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.edge.ClientsFile;
import io.mcpledger.app.edge.EdgeServer;
import io.mcpledger.app.edge.EdgeSettings;
import io.mcpledger.domain.Identifiers;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code edge}: the reference MCP edge (contract section 16) in front of one stdio MCP server, asking the ledger before
 * it forwards any {@code tools/call}. Every flag and the clients file are checked before anything starts.
 */
@Command(name = "edge", mixinStandardHelpOptions = true,
        description = "Serve MCP Streamable HTTP on /mcp in front of a stdio MCP server, asking the ledger before every"
                + " tools/call.",
        footer = "Example: ledger-app edge --clients clients.yaml -- java -jar pricing-server.jar")
public final class EdgeCommand implements Callable<Integer> {
    @Option(names = "--listen", defaultValue = "${env:EDGE_LISTEN:-127.0.0.1:4321}", converter = HostPort.Converter.class,
            description = "HOST:PORT to serve MCP on (default ${DEFAULT-VALUE}).")
    HostPort listen;

    @Option(names = "--ledger", defaultValue = "${env:EDGE_LEDGER:-http://127.0.0.1:4320}",
            description = "The ledger's base URL (default ${DEFAULT-VALUE}).")
    String ledger;

    @Option(names = "--ledger-credential", defaultValue = "${env:EDGE_LEDGER_CREDENTIAL:-./state/ledger/credentials/edge.token}",
            description = "File holding the ledger's edge credential (default ${DEFAULT-VALUE}).")
    Path ledgerCredential;

    @Option(names = "--clients", defaultValue = "${env:EDGE_CLIENTS}",
            description = "YAML file of the client tokens accepted: clients: [{tokenSha256: HEX, principal: NAME}].")
    Path clients;

    @Option(names = "--server-id", description = "The MCP server's id in the ledger's calls and policy (default: the"
            + " stdio server's name from its initialize answer).")
    String serverId;

    @Option(names = "--edge-id", description = "This edge's id in the ledger (default: the host name and the listen"
            + " port, HOST:PORT).")
    String edgeId;

    @Option(names = "--call-timeout", defaultValue = "60s", converter = Durations.class,
            description = "How long a tools/call may run before its outcome is unknown (default ${DEFAULT-VALUE}).")
    Duration callTimeout;

    @Option(names = "--expired-status", defaultValue = "410",
            description = "HTTP status of an expired session: 410 (default) or 404 (clients that re-initialize only"
                    + " on 404 then do so).")
    int expiredStatus;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The stdio MCP server to run, after --.")
    List<String> command;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private final CountDownLatch stopped = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        EdgeSettings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        String busy = ServeCommand.checkListen(listen);
        if (busy != null) {
            return fail(busy);
        }
        EdgeServer server;
        try {
            server = EdgeServer.start(settings);
        } catch (IOException | RuntimeException e) {
            return fail(e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            spec.commandLine().getOut().println("Stopped: edge " + settings.edgeId() + ".");
            spec.commandLine().getOut().flush();
            stopped.countDown();
        }, "edge-shutdown"));
        spec.commandLine().getOut().println("Ready: edge " + settings.edgeId() + " (incarnation "
                + server.edge().incarnation() + ") serving MCP on http://" + listen.host() + ":" + server.port()
                + "/mcp for server " + server.edge().serverId() + "; ledger " + settings.ledger() + ".");
        spec.commandLine().getOut().flush();
        stopped.await();
        return LedgerMain.EXIT_OK;
    }

    /** The settings the flags name, each checked; an {@link IllegalArgumentException} with one line otherwise. */
    EdgeSettings settings() {
        URI ledgerUri;
        try {
            ledgerUri = new URI(ledger.endsWith("/") ? ledger : ledger + "/");
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--ledger must be a URL such as http://127.0.0.1:4320, got " + ledger);
        }
        if (!"http".equals(ledgerUri.getScheme()) && !"https".equals(ledgerUri.getScheme())
                || ledgerUri.getHost() == null) {
            throw new IllegalArgumentException("--ledger must be an http or https URL with a host, got " + ledger);
        }
        String credential;
        try {
            credential = Files.readString(ledgerCredential).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --ledger-credential " + ledgerCredential + ": "
                    + FileErrors.describe(e));
        }
        if (credential.isEmpty()) {
            throw new IllegalArgumentException("--ledger-credential " + ledgerCredential + " is empty");
        }
        if (clients == null) {
            throw new IllegalArgumentException("--clients FILE is required: the client tokens this edge accepts");
        }
        Map<String, String> accepted = ClientsFile.read(clients);
        if (serverId != null && !Identifiers.isIdentifier(serverId)) {
            throw new IllegalArgumentException("--server-id must be 1 to 256 visible ASCII characters");
        }
        String id = edgeId != null ? edgeId : hostName() + ":" + listen.port();
        if (!Identifiers.isIdentifier(id) || id.contains("/") || id.contains("%") || id.contains("?")
                || id.contains("#")) {
            throw new IllegalArgumentException("--edge-id must be 1 to 256 visible ASCII characters without / % ? #,"
                    + " got \"" + id + "\"");
        }
        if (expiredStatus != 404 && expiredStatus != 410) {
            throw new IllegalArgumentException("--expired-status must be 404 or 410, got " + expiredStatus);
        }
        return new EdgeSettings(listen.host(), listen.port(), ledgerUri, credential, accepted, serverId, id, callTimeout,
                expiredStatus, command);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("ledger-app edge: " + message);
        return LedgerMain.EXIT_USAGE;
    }
}
