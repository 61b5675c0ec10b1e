package io.mcpledger.app.metrics;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.engine.LedgerEngine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;

/** Registers the ledger's meters in Micronaut's registry as the service starts, before any request. */
@Requires(notEnv = Environments.EDGE)
@Factory
public class MetricsFactory {
    @Context
    LedgerMetrics ledgerMetrics(MeterRegistry registry, LedgerEngine ledger) {
        return new LedgerMetrics(registry, ledger);
    }
}
