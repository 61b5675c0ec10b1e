package io.mcpledger.app.http;

import io.mcpledger.domain.LedgerException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/** Refusals thrown while reading a request (bad input, the session cap) answer with the contract's error body. */
@Produces
@Singleton
@Requires(classes = {LedgerException.class, ExceptionHandler.class})
class LedgerExceptionHandler implements ExceptionHandler<LedgerException, HttpResponse<byte[]>> {
    @Override
    public HttpResponse<byte[]> handle(HttpRequest request, LedgerException exception) {
        return Failures.toResponse(exception);
    }
}
