package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.util.Optional;

/**
 * Health for load balancers and scripts, no credential needed: {@code 200 {"status": "ok", "receipts": N,
 * "treeSize": M}} when ready ({@code N} receipts stored, {@code M} of them integrated); {@code 503 {"status":
 * "starting", "folded": F, "of": T}} while a start folds the log's tail; {@code 503 {"status": "degraded", "problem":
 * TEXT}} when the ledger cannot append (writes cannot be forced, the projections stopped) or the log or the
 * projections are not being stored.
 */
@Requires(notEnv = Environments.EDGE)
@Controller("/health")
public class HealthController {
    private final LedgerEngine ledger;

    HealthController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @Get
    HttpResponse<byte[]> health() {
        ObjectNode body = Replies.object();
        LedgerEngine.StartState start = ledger.start();
        if (!start.ready() && start.failure() == null) {
            body.put("status", "starting");
            body.put("folded", start.folded());
            body.put("of", start.of());
            return Replies.json(503, body);
        }
        Optional<String> problem = start.failure() != null
                ? Optional.of("the ledger could not start: " + start.failure()) : ledger.problem();
        body.put("status", problem.isPresent() ? "degraded" : "ok");
        body.put("receipts", ledger.projector().position());
        body.put("treeSize", ledger.log().latest().size());
        problem.ifPresent(p -> body.put("problem", p));
        return Replies.json(problem.isPresent() ? 503 : 200, body);
    }
}
