package io.mcpledger.app.engine;

import io.mcpledger.app.statedir.LoadedState;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.web.router.Router;
import io.mcpledger.app.storage.StorageException;
import java.time.Clock;
import java.util.List;
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

    /**
     * Opens the engine, starts the server, and returns once the engine has folded the log's tail; meanwhile the
     * server answers {@code /health} with the progress and everything else with {@code 503 starting}.
     */
    public static LedgerServer start(LoadedState state, LedgerSettings settings, Clock clock) {
        ApplicationContext context = ApplicationContext.builder()
                .properties(Map.of("micronaut.server.host", settings.listen().host(),
                        "micronaut.server.port", settings.listen().port()))
                .singletons(state, settings, clock)
                .start();
        try {
            LedgerServer server = new LedgerServer(context, context.getBean(EmbeddedServer.class).start());
            server.engine().awaitStart(LedgerEngine.START_TIMEOUT);
            return server;
        } catch (RuntimeException | StorageException e) {
            context.close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
        }
    }

    public String host() {
        return server.getHost();
    }

    public int port() {
        return server.getPort();
    }

    /**
     * Every route the server answers, as {@code METHOD /path/{variable}} (a variable's pattern left out), sorted:
     * what the OpenAPI document must describe.
     */
    public List<String> routes() {
        return context.getBean(Router.class).uriRoutes()
                .map(route -> route.getHttpMethodName() + " "
                        + route.getUriMatchTemplate().toString().replaceAll("\\{(\\w+):[^}]*}", "{$1}"))
                .distinct().sorted().toList();
    }

    public LedgerEngine engine() {
        return context.getBean(LedgerEngine.class);
    }

    /** The service's bean of {@code type} (its credentials, its meters), for tests that drive one of its parts. */
    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** Stops accepting requests, then closes the engine: queued commands finish and the store is closed. */
    @Override
    public void close() {
        server.stop();
        context.close();
    }
}
