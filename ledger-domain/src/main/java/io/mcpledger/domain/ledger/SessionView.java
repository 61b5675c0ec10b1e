package io.mcpledger.domain.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.SessionState;
import java.time.Duration;

/** The session object {@code S} of contract section 4, rendered from a session's state. */
public final class SessionView {
    private SessionView() {
    }

    /**
     * Renders S. {@code idleExpiry} gives {@code expiresAt}; pass null to leave it out, as the projection
     * digest does (it depends on configuration, not on the log).
     */
    public static ObjectNode toJson(SessionState s, Duration idleExpiry) {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("id", s.id());
        node.put("state", s.status().wire());
        node.put("principal", s.principal());
        node.put("serverId", s.serverId());
        node.put("protocolVersion", s.protocolVersion());
        node.put("createdAt", Timestamps.format(s.createdAt()));
        node.put("lastActivityAt", Timestamps.format(s.lastActivityAt()));
        if (idleExpiry != null) {
            node.put("expiresAt", Timestamps.format(s.expiresAt(idleExpiry)));
        }
        node.put("resumes", s.resumes());
        ObjectNode capability = node.putObject("capability");
        capability.put("id", s.capability().id());
        capability.put("revoked", s.capabilityRevoked());
        capability.set("grants", s.capability().grantsJson());
        node.set("calls", s.callsJson());
        node.put("seq", s.seq());
        node.put("head", s.head());
        return node;
    }
}
