package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.ErrorCode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.PathMatcher;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;
import java.util.List;

/**
 * Authenticates every {@code /v1} and {@code /metrics} request before anything is read or decided (contract section 3): a missing or
 * unknown credential is {@code 401} with {@code WWW-Authenticate: Bearer}, a known one without the role the
 * endpoint needs is {@code 403 forbidden}. What an endpoint needs is read from the route Micronaut matched
 * ({@link EdgeEndpoint}, {@link PublicEndpoint}), so every spelling of a path gets the same answer.
 *
 * <p>The filter is declared for every path and tests its own ({@link #guards}): Micronaut keeps the filters of every
 * path in one sorted list, while a filter with patterns makes it match each pattern against each request's path and
 * sort the filters again, about a fourteenth of the event loops' CPU at saturation (docs/benchmarks.md, section 8).
 */
@Requires(notEnv = Environments.EDGE)
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
class AuthFilter {
    /** The paths that need a credential, as the Ant patterns Micronaut matches a filter's paths with. */
    static final List<String> GUARDED = List.of("/v1/**", "/metrics", "/metrics/**");
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
        if (!guards(request.getPath())) {
            return null;
        }
        RouteMatch<?> route = RouteAttributes.getRouteMatch(request).orElse(null);
        if (route != null && route.getAnnotationMetadata().hasAnnotation(PublicEndpoint.class)) {
            return null;
        }
        String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        String credential = bearer(header);
        if (credential == null) {
            return unauthorized("send Authorization: Bearer <credential>; the credentials are in the ledger's state directory");
        }
        Role role = credentials.roleOf(credential);
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

    /**
     * Whether {@code path} needs a credential: whether one of {@link #GUARDED} matches it, as Micronaut would have
     * matched them. The paths of the ledger's own routes are answered by the first three tests, without the matcher.
     */
    static boolean guards(String path) {
        if (path.startsWith("/v1/") || path.equals("/metrics") || path.startsWith("/metrics/")) {
            return true;
        }
        for (String pattern : GUARDED) {
            if (PathMatcher.ANT.matches(pattern, path)) {
                return true;
            }
        }
        return false;
    }

    /** The credential of an {@code Authorization: Bearer} header, or null without one; shared with DirectCalls. */
    static String bearer(String header) {
        return header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? header.substring(BEARER.length()).strip() : null;
    }

    /** Whether the request was authenticated with the edge credential. */
    static boolean byEdge(HttpRequest<?> request) {
        return request.getAttribute(ROLE, Role.class).orElse(null) == Role.EDGE;
    }

    private static HttpResponse<?> unauthorized(String message) {
        return Replies.error(ErrorCode.UNAUTHORIZED, message, null).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
    }
}
