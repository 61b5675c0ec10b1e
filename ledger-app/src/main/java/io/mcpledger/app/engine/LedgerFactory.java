package io.mcpledger.app.engine;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.storage.StorageException;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/**
 * Opens the ledger with the Micronaut context (it folds the log's tail in the background while the server answers
 * {@code 503 starting}) and closes it when the context closes.
 */
@Requires(notEnv = Environments.EDGE)
@Factory
public class LedgerFactory {
    @Context
    @Bean(preDestroy = "close")
    LedgerEngine ledgerEngine(LoadedState state, LedgerSettings settings, Clock clock) throws StorageException {
        return LedgerEngine.open(state, settings, clock, LedgerEngine.openDatabase(state, settings));
    }

    @Singleton
    SessionCap sessionCap(LedgerEngine engine, LedgerSettings settings) {
        return new SessionCap(settings.maxActiveSessions(), engine.projector());
    }
}
