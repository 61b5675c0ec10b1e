package io.mcpledger.app.http;

import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.ErrorCode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Authenticates every {@code /v1} request before anything is read or decided (spec section 3): a missing or
 * unknown credential is {@code 401} with {@code WWW-Authenticate: Bearer}, a known one without the role the
 * endpoint needs is {@code 403 forbidden}.
 */
@ServerFilter("/v1/**")
class AuthFilter {
    private static final String BEARER = "Bearer ";

    private final Credentials credentials;

    AuthFilter(Credentials credentials) {
        this.credentials = credentials;
    }

    @RequestFilter
    @Nullable
    HttpResponse<?> authenticate(HttpRequest<?> request) {
        // The raw path: decoded, an escaped '/' inside a requestId would shift the segments the rules look at.
        String path = request.getUri().getRawPath();
        if (Access.isPublic(request.getMethod(), path)) {
            return null;
        }
        String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return unauthorized("send Authorization: Bearer <credential>; the credentials are in the ledger's state directory");
        }
        Role role = credentials.roleOf(header.substring(BEARER.length()).strip());
        if (role == null) {
            return unauthorized("the bearer credential is not one of this ledger's credentials");
        }
        if (!Access.allows(role, request.getMethod(), path)) {
            return Replies.error(ErrorCode.FORBIDDEN, "the " + role.id() + " credential may not "
                    + request.getMethod() + " " + path, null);
        }
        return null;
    }

    private static HttpResponse<?> unauthorized(String message) {
        return Replies.error(ErrorCode.UNAUTHORIZED, message, null).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
    }
}
