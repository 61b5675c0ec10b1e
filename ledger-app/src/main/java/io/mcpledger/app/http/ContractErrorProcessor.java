package io.mcpledger.app.http;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/**
 * Errors Micronaut answers itself (no such route, wrong method, a body over the size limit) use the
 * contract's body {@code {"error": {"code", "message"}}} too, so a client parses every error one way.
 */
@Singleton
@Replaces(ErrorResponseProcessor.class)
class ContractErrorProcessor implements ErrorResponseProcessor<byte[]> {
    @Override
    @SuppressWarnings("unchecked")
    public MutableHttpResponse<byte[]> processResponse(ErrorContext context, MutableHttpResponse<?> response) {
        int status = response.code();
        String message = context.getErrors().stream().map(Error::getMessage).findFirst()
                .orElse(HttpStatus.valueOf(status).getReason());
        if (status == 413) {
            message = RequestBody.TOO_LARGE;
        }
        byte[] body = Replies.bytes(Replies.errorBody(codeFor(status), message, null));
        return ((MutableHttpResponse<byte[]>) response).contentType(MediaType.APPLICATION_JSON_TYPE).body(body);
    }

    static String codeFor(int status) {
        return switch (status) {
            case 400 -> "invalid_request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 406 -> "not_acceptable";
            case 413 -> "payload_too_large";
            case 415 -> "unsupported_media_type";
            case 503 -> "unavailable";
            default -> "internal_error";
        };
    }
}
