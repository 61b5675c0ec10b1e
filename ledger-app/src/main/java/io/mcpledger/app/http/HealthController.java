package io.mcpledger.app.http;

import io.mcpledger.app.engine.LedgerEngine;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.util.Map;

/** Liveness for load balancers and scripts: the ledger is up and has replayed its log. No credential needed. */
@Controller("/health")
public class HealthController {
    private final LedgerEngine ledger;

    HealthController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @Get
    Map<String, Object> health() {
        return Map.of("status", "ok", "receipts", ledger.projection().size());
    }
}
