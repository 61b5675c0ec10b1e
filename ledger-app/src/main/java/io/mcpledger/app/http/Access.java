package io.mcpledger.app.http;

import io.mcpledger.app.statedir.Role;
import io.micronaut.http.HttpMethod;

/** Which role may do what (contract section 3): edges run sessions and calls, auditors read, operators do everything. */
final class Access {
    private Access() {
    }

    /** {@code edgeEndpoint}: the matched route is marked {@link EdgeEndpoint}; false when no route matched. */
    static boolean allows(Role role, HttpMethod method, boolean edgeEndpoint) {
        return switch (role) {
            case OPERATOR -> true;
            case AUDITOR -> method == HttpMethod.GET || method == HttpMethod.HEAD;
            case EDGE -> edgeEndpoint;
        };
    }
}
