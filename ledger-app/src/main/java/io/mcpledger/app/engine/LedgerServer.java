package io.mcpledger.app.engine;

import io.mcpledger.app.statedir.LoadedState;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.time.Clock;
import java.util.Map;

/**
 * The ledger's HTTP service: a Micronaut context holding the {@link LedgerEngine} and the embedded server.
 * {@code serve} runs one until SIGTERM; tests run one in-process with a clock of their own.
 */
public final class LedgerServer implements AutoCloseable {
    private final ApplicationContext context;
    private final EmbeddedServer server;

    private LedgerServer(ApplicationContext context, EmbeddedServer server) {
        this.context = context;
        this.server = server;
    }

    /** Starts the engine (replaying the store) and then the server; nothing is served before the replay ends. */
    public static LedgerServer start(LoadedState state, LedgerSettings settings, Clock clock) {
        ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of("micronaut.server.host", settings.listen().host(),
                        "micronaut.server.port", settings.listen().port()))
                .singletons(state, settings, clock)
                .start();
        try {
            return new LedgerServer(context, context.getBean(EmbeddedServer.class).start());
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    public String host() {
        return server.getHost();
    }

    public int port() {
        return server.getPort();
    }

    public LedgerEngine engine() {
        return context.getBean(LedgerEngine.class);
    }

    /** Stops accepting requests, then closes the engine: queued commands finish and the store is closed. */
    @Override
    public void close() {
        server.stop();
        context.close();
    }
}
