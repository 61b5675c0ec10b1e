package io.mcpledger.domain.session;

import java.time.Duration;
import java.time.Instant;

/**
 * One session as its receipts describe it: what the session object S shows and what the next decision needs, and
 * nothing that grows with the session's history (its calls are in a {@link CallBook}, its capabilities' owners in
 * the ledger's state). A mutable accumulator owned by one reader (an aggregate, the projections, the verifier) and
 * changed only by {@link SessionFold}; it never reads a clock. {@link SessionStateJson} stores it.
 */
public final class SessionState extends CallCounts {
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
    boolean capabilityRevoked;
    String capabilityRevocationId;
    String policy;
    Edge edge;
    long seq;
    String head;

    SessionState(String id) {
        this.id = id;
    }

    /** An independent copy: the projections hand one to each reader that will change it. */
    public SessionState copy() {
        SessionState c = new SessionState(id);
        c.status = status;
        c.principal = principal;
        c.tokenRef = tokenRef;
        c.serverId = serverId;
        c.protocolVersion = protocolVersion;
        c.createdAt = createdAt;
        c.lastActivityAt = lastActivityAt;
        c.resumes = resumes;
        c.capability = capability;
        c.capabilityRevoked = capabilityRevoked;
        c.capabilityRevocationId = capabilityRevocationId;
        c.policy = policy;
        c.edge = edge;
        copyCountsTo(c);
        c.seq = seq;
        c.head = head;
        return c;
    }

    public String id() {
        return id;
    }

    public SessionStatus status() {
        return status;
    }

    public boolean active() {
        return status == SessionStatus.ACTIVE;
    }

    /**
     * True when the session is active and idle longer than {@code idleExpiry} at {@code now}: the one rule of idle
     * expiry, which the aggregate, the reaper and every read apply.
     */
    public boolean idlePast(Instant now, Duration idleExpiry) {
        return status == SessionStatus.ACTIVE && idlePast(lastActivityAt, now, idleExpiry);
    }

    /** The rule itself, for a reader that keeps only an active session's last activity. */
    public static boolean idlePast(Instant lastActivityAt, Instant now, Duration idleExpiry) {
        return now.isAfter(expiresAt(lastActivityAt, idleExpiry));
    }

    private static Instant expiresAt(Instant lastActivityAt, Duration idleExpiry) {
        return lastActivityAt.plus(idleExpiry);
    }

    /** When the session expires if nothing happens on it: its last activity plus the idle expiry. */
    public Instant expiresAt(Duration idleExpiry) {
        return expiresAt(lastActivityAt, idleExpiry);
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

    public boolean capabilityRevoked() {
        return capabilityRevoked;
    }

    /** The id of the {@code capability.revoked} receipt, once there is one. */
    public String capabilityRevocationId() {
        return capabilityRevocationId;
    }

    /** The policy hash the current capability was issued from, or null when none was active. */
    public String policy() {
        return policy;
    }

    /** The edge of the latest initialize or resume, or null. */
    public Edge edge() {
        return edge;
    }

    /** The incarnation of {@link #edge()}, or null. */
    public String incarnation() {
        return edge == null ? null : edge.incarnation();
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
