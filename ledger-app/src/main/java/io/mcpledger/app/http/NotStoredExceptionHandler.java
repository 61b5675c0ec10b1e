package io.mcpledger.app.http;

import io.mcpledger.app.engine.NotStoredException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/** What the store cannot do, thrown while answering a read (a receipt it can no longer force), is 503, not 500. */
@Produces
@Singleton
@Requires(classes = {NotStoredException.class, ExceptionHandler.class})
class NotStoredExceptionHandler implements ExceptionHandler<NotStoredException, HttpResponse<byte[]>> {
    @Override
    public HttpResponse<byte[]> handle(HttpRequest request, NotStoredException exception) {
        return Failures.toResponse(exception);
    }
}
