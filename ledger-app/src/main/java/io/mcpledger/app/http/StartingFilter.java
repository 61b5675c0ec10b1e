package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.domain.ErrorCode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * While the ledger folds the log's tail at start, every endpoint but {@code /health} (and the static
 * {@code /openapi.json}) answers {@code 503 starting}
 * with {@code Retry-After} (contract section 11), before any credential is read: nothing is decided on projections that
 * have not caught up with the log.
 */
@Requires(notEnv = Environments.EDGE)
@ServerFilter("/**")
class StartingFilter implements Ordered {
    private final LedgerEngine ledger;

    StartingFilter(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @RequestFilter
    @Nullable
    HttpResponse<?> refuseWhileStarting(HttpRequest<?> request) {
        if (request.getPath().equals("/health") || request.getPath().equals(OpenApiController.RESOURCE)) {
            return null;
        }
        LedgerEngine.StartState start = ledger.start();
        if (start.ready()) {
            return null;
        }
        String message = start.failure() != null ? "the ledger could not start: " + start.failure()
                : "the ledger is starting: it has folded " + start.folded() + " of the " + start.of()
                + " log entries its stored projections did not hold yet";
        return Replies.error(ErrorCode.STARTING, message, null).header("Retry-After", Failures.RETRY_AFTER_SECONDS);
    }

    /** Before authentication, which would otherwise answer first. */
    @Override
    public int getOrder() {
        return HIGHEST_PRECEDENCE;
    }
}
