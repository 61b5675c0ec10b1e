package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Timestamps;
import java.time.Instant;

/** Why a call was refused: a reason code and the exact message of contract section 4. */
public record Reason(String code, String message) {
    public static final String SESSION_EXPIRED_MESSAGE = "MCP session expired and must be re-initialized";

    public static Reason capabilityRevoked(String capabilityId) {
        return new Reason("capability_revoked", "capability has been revoked: " + capabilityId);
    }

    public static Reason notInScope(String tool, String server) {
        return new Reason("not_in_scope", "requested tool " + tool + " on server " + server + " is not in capability scope");
    }

    public static Reason capabilityExpired(String tool, String server, Instant notAfter) {
        return new Reason("capability_expired", "capability grant for tool " + tool + " on server " + server
                + " expired at " + Timestamps.format(notAfter) + "; resume the session to renew it");
    }

    public static Reason sessionExpired() {
        return new Reason("session_expired", SESSION_EXPIRED_MESSAGE);
    }

    public static Reason tokenRevoked() {
        return new Reason("token_revoked", "the client token has been revoked");
    }

    public ObjectNode toJson() {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("code", code);
        node.put("message", message);
        return node;
    }
}
