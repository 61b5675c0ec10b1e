package io.mcpledger.app.http;

import io.mcpledger.app.demo.PricingMcpServer;
import io.mcpledger.app.demo.RestartablePorts;
import io.mcpledger.app.edge.EdgeServer;
import io.mcpledger.app.edge.EdgeSettings;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.domain.crypto.Sha256;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The edge's tests' world, in this JVM: a ledger on H2 and the reference edge in front of the stdio pricing server
 * (a child process), with {@code --expired-status 404}; the edge can be restarted on the same port.
 */
final class EdgeUnderTest implements AutoCloseable {
    final HttpLedger ledger;
    /** The edge's port on 127.0.0.1; the same across restarts. */
    final int port;
    private final String edgeId;
    private final Duration callTimeout;
    private final Map<String, String> principals = new LinkedHashMap<>();
    private EdgeServer edge;

    /** {@code tokens} alternates client bearer tokens and the principals they stand for. */
    private EdgeUnderTest(Path dir, String edgeId, Duration callTimeout, String... tokens) throws Exception {
        for (int i = 0; i < tokens.length; i += 2) {
            principals.put(Sha256.hexOfUtf8(tokens[i]), tokens[i + 1]);
        }
        this.edgeId = edgeId;
        this.callTimeout = callTimeout;
        this.port = RestartablePorts.pick();
        this.ledger = HttpLedger.start(TestDatabases.Kind.H2, dir.resolve("ledger"));
        try {
            edge = EdgeServer.start(settings());
        } catch (IOException | RuntimeException e) {
            ledger.close();
            throw e;
        }
    }

    static EdgeUnderTest start(Path dir, String edgeId, Duration callTimeout, String... tokensAndPrincipals)
            throws Exception {
        return new EdgeUnderTest(dir, edgeId, callTimeout, tokensAndPrincipals);
    }

    /** Stops the edge (its stdio server too) and starts a new incarnation on the same port. */
    void restartEdge() throws IOException {
        edge.close();
        edge = null;
        edge = EdgeServer.start(settings());
    }

    /** The MCP endpoint's URL. */
    String mcp() {
        return "http://127.0.0.1:" + port + "/mcp";
    }

    private EdgeSettings settings() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new EdgeSettings("127.0.0.1", port, URI.create("http://127.0.0.1:" + ledger.server().port() + "/"),
                ledger.credential(Role.EDGE), Map.copyOf(principals), null, edgeId, callTimeout, 404,
                List.of(java, "-cp", System.getProperty("java.class.path"), PricingMcpServer.class.getName()));
    }

    @Override
    public void close() {
        try {
            if (edge != null) {
                edge.close();
            }
        } finally {
            ledger.close();
        }
    }
}
