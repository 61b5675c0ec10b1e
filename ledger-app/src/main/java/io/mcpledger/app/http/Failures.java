package io.mcpledger.app.http;

import io.mcpledger.app.engine.NotStoredException;
import io.mcpledger.app.engine.StorageFullException;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.micronaut.http.MutableHttpResponse;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.axonframework.commandhandling.CommandExecutionException;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where failures become the contract's error answers (contract section 11). A refusal
 * ({@link LedgerException}) appended nothing; an unknown session id is {@code 404 session_not_found};
 * a command that was not stored is {@code 503 unavailable} and safe to retry.
 */
final class Failures {
    private static final Logger LOG = LoggerFactory.getLogger(Failures.class);
    static final String RETRY_AFTER_SECONDS = "1";
    /** Freeing disk space is a person's work: edges need not ask every second. */
    static final String STORAGE_FULL_RETRY_SECONDS = "10";

    private Failures() {
    }

    static MutableHttpResponse<byte[]> toResponse(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LedgerException refused) {
            MutableHttpResponse<byte[]> response = Replies.error(refused.code(), refused.getMessage(), null);
            if (refused.code() == ErrorCode.SESSION_LIMIT) {
                response.header("Retry-After", RETRY_AFTER_SECONDS);
            }
            return response;
        }
        if (cause instanceof AggregateNotFoundException) {
            return Replies.error(ErrorCode.SESSION_NOT_FOUND, "session not found", null);
        }
        if (cause instanceof StorageFullException full) {
            return Replies.error(ErrorCode.STORAGE_FULL, full.getMessage(), null)
                    .header("Retry-After", STORAGE_FULL_RETRY_SECONDS);
        }
        if (cause instanceof NotStoredException notStored) {
            return Replies.error(503, ContractErrorProcessor.codeFor(503), notStored.getMessage(), null)
                    .header("Retry-After", RETRY_AFTER_SECONDS);
        }
        LOG.error("Request failed unexpectedly; nothing was acknowledged", cause);
        return Replies.error(500, ContractErrorProcessor.codeFor(500), "the ledger failed to answer (" + cause.getClass().getSimpleName()
                + "); nothing was acknowledged, see the ledger's log", null);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException
                || t instanceof CommandExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
