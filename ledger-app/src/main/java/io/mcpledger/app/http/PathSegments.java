package io.mcpledger.app.http;

import io.micronaut.http.HttpRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Path segments decoded as RFC 3986 says: percent escapes only. Micronaut's path variables are decoded like form
 * fields, turning '+' into a space, but '+' is a literal in a path and legal in every identifier, so a requestId
 * {@code r+1} must stay {@code r+1}.
 */
final class PathSegments {
    private PathSegments() {
    }

    /** Segment {@code index} of the request path, 0 being the one after the leading '/': 0 is "v1". */
    static String segment(HttpRequest<?> request, int index) {
        String[] segments = request.getUri().getRawPath().substring(1).split("/", -1);
        if (index >= segments.length) {
            throw new IllegalArgumentException("the path " + request.getPath() + " has no segment " + index);
        }
        try {
            return URLDecoder.decode(segments[index].replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw RequestBody.invalid("the path has a malformed percent escape in \"" + segments[index] + "\"");
        }
    }
}
