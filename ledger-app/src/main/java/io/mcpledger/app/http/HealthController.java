package io.mcpledger.app.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.util.Optional;

/**
 * Health for load balancers and scripts, no credential needed: {@code 200 {"status": "ok", "receipts": N,
 * "treeSize": M}} once the log is replayed ({@code M} entries integrated); {@code 503 {"status": "degraded", ...}} with
 * the problem when the projections stopped matching the log (every receipt is still stored; a restart rebuilds them)
 * or integration into the transparency log keeps failing.
 */
@Controller("/health")
public class HealthController {
    private final LedgerEngine ledger;

    HealthController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @Get
    HttpResponse<byte[]> health() {
        ObjectNode body = Replies.object();
        Optional<String> problem = ledger.projection().problem()
                .map(p -> p + "; restart the ledger to rebuild the projections from the log")
                .or(ledger::logProblem);
        body.put("status", problem.isPresent() ? "degraded" : "ok");
        body.put("receipts", ledger.projection().size());
        body.put("treeSize", ledger.log().latest().size());
        problem.ifPresent(p -> body.put("problem", p));
        return Replies.json(problem.isPresent() ? 503 : 200, body);
    }
}
