package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One session as its receipts describe it. A mutable accumulator owned by one reader (the aggregate,
 * a projection, the verifier) and changed only by {@link SessionFold}; it never reads a clock.
 */
public final class SessionState {
    final String id;
    SessionStatus status = SessionStatus.ACTIVE;
    String principal;
    String tokenRef;
    String serverId;
    String protocolVersion;
    Instant createdAt;
    Instant lastActivityAt;
    long resumes;
    Capability capability;
    final Set<String> capabilityIds = new LinkedHashSet<>();
    boolean capabilityRevoked;
    Receipt capabilityRevocation;
    String policy;
    Edge edge;
    final Map<String, CallRecord> calls = new LinkedHashMap<>();
    long admitted;
    long refused;
    long completed;
    long unknown;
    long pending;
    long seq;
    String head;

    SessionState(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public SessionStatus status() {
        return status;
    }

    public String principal() {
        return principal;
    }

    public String tokenRef() {
        return tokenRef;
    }

    public String serverId() {
        return serverId;
    }

    public String protocolVersion() {
        return protocolVersion;
    }

    public Instant createdAt() {
        return createdAt;
    }

    /** The time of the latest edge request on the session (initialize, resume, call, outcome). */
    public Instant lastActivityAt() {
        return lastActivityAt;
    }

    public long resumes() {
        return resumes;
    }

    public Capability capability() {
        return capability;
    }

    /** True when the session has held this capability id, now or before a resume. */
    public boolean held(String capabilityId) {
        return capabilityIds.contains(capabilityId);
    }

    public boolean capabilityRevoked() {
        return capabilityRevoked;
    }

    /** The {@code capability.revoked} receipt, once there is one. */
    public Receipt capabilityRevocation() {
        return capabilityRevocation;
    }

    /** The policy hash the current capability was issued from, or null when none was active. */
    public String policy() {
        return policy;
    }

    /** The edge of the latest initialize or resume, or null. */
    public Edge edge() {
        return edge;
    }

    public CallRecord call(String requestId) {
        return calls.get(requestId);
    }

    public Map<String, CallRecord> calls() {
        return Collections.unmodifiableMap(calls);
    }

    public long admitted() {
        return admitted;
    }

    public long refused() {
        return refused;
    }

    public long completed() {
        return completed;
    }

    public long unknown() {
        return unknown;
    }

    public long pending() {
        return pending;
    }

    /** The number of receipts in the session. */
    public long seq() {
        return seq;
    }

    /** Hex SHA-256 of the latest receipt line. */
    public String head() {
        return head;
    }
}
