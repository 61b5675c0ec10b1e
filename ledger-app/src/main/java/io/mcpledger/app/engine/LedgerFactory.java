package io.mcpledger.app.engine;

import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.storage.StorageException;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Starts the ledger (store, Axon, replay) with the Micronaut context and closes it when the context closes. */
@Factory
public class LedgerFactory {
    @Context
    @Bean(preDestroy = "close")
    LedgerEngine ledgerEngine(LoadedState state, LedgerSettings settings, Clock clock) throws StorageException {
        return LedgerEngine.start(state, settings, clock);
    }

    @Singleton
    SessionCap sessionCap(LedgerEngine engine, LedgerSettings settings) {
        return new SessionCap(settings.maxActiveSessions(), engine.projection());
    }
}
