package io.mcpledger.app.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.context.ServerRequestContext;
import io.micronaut.http.server.netty.NettyHttpRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Builds the JSON answers of the contract. Receipts are written as their exact signed JCS bytes, never
 * re-serialized, so what a client stores verifies byte for byte.
 */
final class Replies {
    private Replies() {
    }

    static ObjectNode object() {
        return Canonical.JSON.createObjectNode();
    }

    /** Puts a receipt under {@code field} as its signed JCS line, unchanged. */
    static ObjectNode putReceipt(ObjectNode node, String field, Receipt receipt) {
        node.putRawValue(field, new RawValue(receipt.line()));
        return node;
    }

    static MutableHttpResponse<byte[]> json(int status, ObjectNode body) {
        return HttpResponse.<byte[]>status(HttpStatus.valueOf(status)).contentType(MediaType.APPLICATION_JSON_TYPE)
                .body(bytes(body));
    }

    static MutableHttpResponse<byte[]> ok(ObjectNode body) {
        return json(200, body);
    }

    /** {@code {"error": {"code", "message"}}}, with the receipt that was appended (or is repeated) when there is one. */
    static MutableHttpResponse<byte[]> error(ErrorCode code, String message, Receipt receipt) {
        return error(code.httpStatus(), code.code(), message, receipt);
    }

    static MutableHttpResponse<byte[]> error(int status, String code, String message, Receipt receipt) {
        return json(status, errorBody(code, message, receipt));
    }

    static ObjectNode errorBody(String code, String message, Receipt receipt) {
        ObjectNode body = object();
        ObjectNode error = body.putObject("error");
        error.put("code", code);
        error.put("message", message);
        if (receipt != null) {
            putReceipt(body, "receipt", receipt);
        }
        return body;
    }

    /**
     * Renders a command's answer once it is committed, or its failure through {@link Failures}. The rendering, and the
     * rest of Micronaut's answer to the request, runs on the request's own event loop, not on the command worker that
     * completes {@code answer}: that worker's next batch waits for nothing but its own work.
     */
    static <A> CompletableFuture<HttpResponse<byte[]>> later(CompletableFuture<A> answer,
                                                             Function<A, HttpResponse<byte[]>> render) {
        return later(answer, render, answer.isDone() ? null : eventLoop());
    }

    /** As {@link #later(CompletableFuture, Function)}, rendering on {@code loop} unless it is null. */
    static <A> CompletableFuture<HttpResponse<byte[]>> later(CompletableFuture<A> answer,
                                                             Function<A, HttpResponse<byte[]>> render, Executor loop) {
        BiFunction<A, Throwable, HttpResponse<byte[]>> respond =
                (a, failure) -> failure != null ? Failures.toResponse(failure) : render.apply(a);
        return loop == null ? answer.handle(respond) : answer.handleAsync(respond, loop);
    }

    /** The event loop of the request being handled on this thread, or null outside one. */
    private static Executor eventLoop() {
        return ServerRequestContext.currentRequest()
                .filter(NettyHttpRequest.class::isInstance)
                .map(request -> (Executor) ((NettyHttpRequest<?>) request).getChannelHandlerContext().executor())
                .orElse(null);
    }

    static byte[] bytes(ObjectNode body) {
        try {
            return Canonical.JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an answer could not be written as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
