package io.mcpledger.app.http;

import io.mcpledger.app.statedir.Role;
import io.micronaut.http.HttpMethod;

/** Which role may do what (spec section 3): edges run sessions and calls, auditors read, operators do everything. */
final class Access {
    private Access() {
    }

    /** The one {@code /v1} resource anyone may read without a credential. */
    static boolean isPublic(HttpMethod method, String path) {
        return method == HttpMethod.GET && path.equals("/v1/log/public-key");
    }

    static boolean allows(Role role, HttpMethod method, String path) {
        boolean read = method == HttpMethod.GET || method == HttpMethod.HEAD;
        return switch (role) {
            case OPERATOR -> true;
            case AUDITOR -> read;
            case EDGE -> edgeMay(read, method, path.split("/", -1));
        };
    }

    /**
     * Edges may use the session and call endpoints except the operator's (resolution, revoke), read receipts,
     * and read the policy. Segments of {@code /v1/sessions/{id}/calls/{requestId}/resolution}: "", v1, sessions, ...
     */
    private static boolean edgeMay(boolean read, HttpMethod method, String[] segments) {
        if (segments.length >= 3 && segments[1].equals("v1") && segments[2].equals("sessions")) {
            boolean revoke = segments.length == 5 && segments[4].equals("revoke");
            boolean resolution = segments.length == 7 && segments[4].equals("calls") && segments[6].equals("resolution");
            return !(method == HttpMethod.POST && (revoke || resolution));
        }
        if (read && segments.length >= 3 && segments[1].equals("v1")) {
            return segments[2].equals("receipts") || (segments.length == 3 && segments[2].equals("policy"));
        }
        return false;
    }
}
