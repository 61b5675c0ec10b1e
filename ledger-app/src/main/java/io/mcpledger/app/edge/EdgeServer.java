package io.mcpledger.app.edge;

import io.mcpledger.app.Environments;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.IOException;
import java.util.Map;

/**
 * The edge's HTTP service: a Micronaut context in the {@link Environments#EDGE} environment (none of the ledger's beans)
 * holding the {@link McpEdge} and serving {@code /mcp}. {@code ledger-app edge} runs one until SIGTERM; tests run
 * them in-process.
 */
public final class EdgeServer implements AutoCloseable {
    /** A tool call's arguments may be larger than a ledger request: MCP bodies up to 4 MiB are taken. */
    static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

    private final McpEdge edge;
    private final ApplicationContext context;
    private final EmbeddedServer server;

    private EdgeServer(McpEdge edge, ApplicationContext context, EmbeddedServer server) {
        this.edge = edge;
        this.context = context;
        this.server = server;
    }

    /** Starts the edge (its stdio server, its incarnation) and then its HTTP service; see {@link McpEdge#start}. */
    public static EdgeServer start(EdgeSettings settings) throws IOException {
        McpEdge edge = McpEdge.start(settings);
        try {
            ApplicationContext context = ApplicationContext.builder()
                    .environments(Environments.EDGE)
                    .properties(Map.of("micronaut.server.host", settings.host(),
                            "micronaut.server.port", settings.port(),
                            "micronaut.server.max-request-size", MAX_REQUEST_BYTES,
                            "micronaut.application.name", "ledger-edge"))
                    .singletons(edge)
                    .start();
            try {
                return new EdgeServer(edge, context, context.getBean(EmbeddedServer.class).start());
            } catch (RuntimeException e) {
                context.close();
                throw e;
            }
        } catch (RuntimeException e) {
            edge.close();
            throw e;
        }
    }

    public McpEdge edge() {
        return edge;
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.stop();
        context.close();
        edge.close();
    }
}
