package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.ErrorCode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;

/**
 * Authenticates every {@code /v1} and {@code /metrics} request before anything is read or decided (contract section 3): a missing or
 * unknown credential is {@code 401} with {@code WWW-Authenticate: Bearer}, a known one without the role the
 * endpoint needs is {@code 403 forbidden}. What an endpoint needs is read from the route Micronaut matched
 * ({@link EdgeEndpoint}, {@link PublicEndpoint}), so every spelling of a path gets the same answer.
 */
@Requires(notEnv = Environments.EDGE)
@ServerFilter({"/v1/**", "/metrics", "/metrics/**"})
class AuthFilter {
    private static final String BEARER = "Bearer ";
    /** The request attribute holding the caller's {@link Role}. */
    static final String ROLE = "io.mcpledger.role";

    private final Credentials credentials;

    AuthFilter(Credentials credentials) {
        this.credentials = credentials;
    }

    @RequestFilter
    @Nullable
    HttpResponse<?> authenticate(HttpRequest<?> request) {
        RouteMatch<?> route = RouteAttributes.getRouteMatch(request).orElse(null);
        if (route != null && route.getAnnotationMetadata().hasAnnotation(PublicEndpoint.class)) {
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
        request.setAttribute(ROLE, role);
        boolean edgeEndpoint = route != null && route.getAnnotationMetadata().hasAnnotation(EdgeEndpoint.class);
        if (!Access.allows(role, request.getMethod(), edgeEndpoint)) {
            return Replies.error(ErrorCode.FORBIDDEN, "the " + role.id() + " credential may not "
                    + request.getMethod() + " " + request.getPath(), null);
        }
        return null;
    }

    /** Whether the request was authenticated with the edge credential. */
    static boolean byEdge(HttpRequest<?> request) {
        return request.getAttribute(ROLE, Role.class).orElse(null) == Role.EDGE;
    }

    private static HttpResponse<?> unauthorized(String message) {
        return Replies.error(ErrorCode.UNAUTHORIZED, message, null).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
    }
}
