package io.mcpledger.app.http;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.server.netty.NettyHttpRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Path segments decoded as RFC 3986 says: percent escapes only. Micronaut's path variables are decoded like form
 * fields, turning '+' into a space, but '+' is a literal in a path and legal in every identifier, so a requestId
 * {@code r+1} must stay {@code r+1}.
 *
 * <p>When the request-target as sent is one that RFC 3986 allows as it is (see {@link #plain}), its path is read as
 * Micronaut routed it, from {@link HttpRequest#getPath()}: the same characters {@link java.net.URI} would give.
 * Any other target is read through {@link HttpRequest#getUri()}, as before (a target {@link java.net.URI} cannot
 * parse Micronaut has answered with {@code 400} "Malformed URI" before any controller runs). Parsing that URI for every
 * request cost about a twentieth of the event loops' CPU at saturation (docs/benchmarks.md, section 8).
 */
final class PathSegments {
    private PathSegments() {
    }

    /** Segment {@code index} of the request path, 0 being the one after the leading '/': 0 is "v1". */
    static String segment(HttpRequest<?> request, int index) {
        String target = request instanceof NettyHttpRequest<?> netty ? netty.getNettyRequest().uri() : null;
        String path = target != null && plain(target) ? request.getPath() : request.getUri().getRawPath();
        String[] segments = path.substring(1).split("/", -1);
        if (index >= segments.length) {
            throw new IllegalArgumentException("the path " + request.getPath() + " has no segment " + index);
        }
        try {
            return URLDecoder.decode(segments[index].replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw RequestBody.invalid("the path has a malformed percent escape in \"" + segments[index] + "\"");
        }
    }

    /**
     * Whether {@code target}, a request-target as sent, is in origin form ({@code /path?query}, starting with a single
     * '/') and holds only what RFC 3986 allows in a path and a query as it is (unreserved characters, sub-delimiters,
     * ':', '@', '/', '?') and escapes of two hex digits: a target {@link java.net.URI} parses, whose raw path is the
     * target up to its first '?'.
     */
    static boolean plain(String target) {
        int length = target.length();
        if (length == 0 || target.charAt(0) != '/' || length > 1 && target.charAt(1) == '/') {
            return false;
        }
        for (int i = 1; i < length; i++) {
            char c = target.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
                continue;
            }
            switch (c) {
                case '-', '.', '_', '~', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', ':', '@', '/', '?' -> {
                }
                case '%' -> {
                    if (i + 2 >= length || !hex(target.charAt(i + 1)) || !hex(target.charAt(i + 2))) {
                        return false;
                    }
                    i += 2;
                }
                default -> {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean hex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
