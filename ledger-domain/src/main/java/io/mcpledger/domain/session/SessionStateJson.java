package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ledger.SessionView;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Timestamps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * A session state as the projections store it, in three documents: the view (the session object S without
 * {@code expiresAt}, in JCS: exactly what the projection digest hashes for the session), the rest of what the fold
 * needs ({@code tokenRef}, the policy the capability came from, the edge, the revocation receipt's id), and the
 * activity: the fields of S that every call changes ({@code calls}, {@code head}, {@code lastActivityAt},
 * {@code seq}). The store writes the activity alone while the other fields ({@link #fixed}) stay as it last wrote
 * them, so the view it holds may be older than the activity, which then has the last word ({@link #read(byte[],
 * byte[], byte[])}).
 */
public final class SessionStateJson {
    private SessionStateJson() {
    }

    /** The JCS bytes of S without {@code expiresAt}. */
    public static byte[] view(SessionState s) {
        return Canonical.jcsBytes(SessionView.toJson(s, null));
    }

    /** The JCS bytes of what the fold needs beyond the view. */
    public static byte[] extra(SessionState s) {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("tokenRef", s.tokenRef);
        if (s.policy != null) {
            node.put("policy", s.policy);
        }
        if (s.edge != null) {
            node.set("edge", s.edge.toJson());
        }
        if (s.capabilityRevocationId != null) {
            node.put("capabilityRevocation", s.capabilityRevocationId);
        }
        return Canonical.jcsBytes(node);
    }

    /**
     * The JCS bytes of the fields of S that every call changes: {@code calls}, {@code head}, {@code lastActivityAt} and
     * {@code seq}.
     */
    public static byte[] activity(SessionState s) {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.set("calls", s.callsJson());
        node.put("head", s.head);
        node.put("lastActivityAt", Timestamps.format(s.lastActivityAt));
        node.put("seq", s.seq);
        return Canonical.jcsBytes(node);
    }

    /** The activity of the S in {@code view} (what {@link #view} wrote): its fields as that S has them. */
    public static byte[] activityOfView(byte[] view) {
        JsonNode v = tree(view);
        ObjectNode node = Canonical.JSON.createObjectNode();
        for (String field : new String[] {"calls", "head", "lastActivityAt", "seq"}) {
            if (v.has(field)) {
                node.set(field, v.get(field));
            }
        }
        return Canonical.jcsBytes(node);
    }

    /**
     * Every field of the state but the activity's: two states with equal ones have the same view and extra once their
     * activities are equal too.
     */
    public record Fixed(SessionStatus status, String principal, String tokenRef, String serverId,
                        String protocolVersion, Instant createdAt, long resumes, Capability capability,
                        boolean capabilityRevoked, String capabilityRevocationId, String policy, Edge edge) {
    }

    /** The state's fields beside its activity, as values: a later change of the state does not change them. */
    public static Fixed fixed(SessionState s) {
        return new Fixed(s.status, s.principal, s.tokenRef, s.serverId, s.protocolVersion, s.createdAt, s.resumes,
                s.capability, s.capabilityRevoked, s.capabilityRevocationId, s.policy, s.edge);
    }

    /** The tokenRef in what {@link #extra} wrote. */
    public static String tokenRef(byte[] extra) {
        return tree(extra).path("tokenRef").asText();
    }

    /**
     * Reads back what {@link #view}, {@link #extra} and {@link #activity} wrote, the activity's fields over the view's:
     * the view may have been written before the activity.
     */
    public static SessionState read(byte[] view, byte[] extra, byte[] activity) {
        SessionState s = read(view, extra);
        JsonNode a = tree(activity);
        s.readCounts(a.path("calls"));
        s.head = a.path("head").asText();
        s.lastActivityAt = Timestamps.parse(a.path("lastActivityAt").asText());
        s.seq = a.path("seq").asLong();
        return s;
    }

    /** Reads back what {@link #view} and {@link #extra} wrote. */
    public static SessionState read(byte[] view, byte[] extra) {
        JsonNode v = tree(view);
        JsonNode x = tree(extra);
        SessionState s = new SessionState(v.path("id").asText());
        s.status = status(v.path("state").asText());
        s.principal = v.path("principal").asText();
        s.serverId = v.path("serverId").asText();
        s.protocolVersion = v.path("protocolVersion").asText();
        s.createdAt = Timestamps.parse(v.path("createdAt").asText());
        s.lastActivityAt = Timestamps.parse(v.path("lastActivityAt").asText());
        s.resumes = v.path("resumes").asLong();
        JsonNode capability = v.path("capability");
        s.capability = Capability.fromJson(capability);
        s.capabilityRevoked = capability.path("revoked").asBoolean();
        JsonNode calls = v.path("calls");
        s.readCounts(calls);
        s.seq = v.path("seq").asLong();
        s.head = v.path("head").asText();
        s.tokenRef = x.path("tokenRef").asText();
        s.policy = x.hasNonNull("policy") ? x.get("policy").asText() : null;
        s.edge = Edge.fromJson(x.get("edge"));
        s.capabilityRevocationId = x.hasNonNull("capabilityRevocation") ? x.get("capabilityRevocation").asText() : null;
        return s;
    }

    private static SessionStatus status(String wire) {
        for (SessionStatus status : SessionStatus.values()) {
            if (status.wire().equals(wire)) {
                return status;
            }
        }
        throw new IllegalArgumentException("a stored session has state '" + wire + "'");
    }

    private static JsonNode tree(byte[] json) {
        try {
            return Canonical.parse(new String(json, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored session state is not JSON: " + e.getMessage(), e);
        }
    }
}
