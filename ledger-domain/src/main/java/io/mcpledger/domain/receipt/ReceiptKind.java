package io.mcpledger.domain.receipt;

import java.util.Arrays;
import java.util.Optional;

/** The kinds of receipt of spec section 6, with their wire names. */
public enum ReceiptKind {
    SESSION_INITIALIZED("session.initialized", true),
    SESSION_RESUMED("session.resumed", true),
    SESSION_EXPIRED("session.expired", true),
    SESSION_DELETED("session.deleted", true),
    CALL_ADMITTED("call.admitted", true),
    CALL_REFUSED("call.refused", true),
    CALL_OUTCOME("call.outcome", true),
    CALL_RESOLVED("call.resolved", true),
    CAPABILITY_REVOKED("capability.revoked", true),
    PRINCIPAL_REVOKED("principal.revoked", false),
    POLICY_ACTIVATED("policy.activated", false);

    private final String wire;
    private final boolean sessionScoped;

    ReceiptKind(String wire, boolean sessionScoped) {
        this.wire = wire;
        this.sessionScoped = sessionScoped;
    }

    public String wire() {
        return wire;
    }

    /** True for kinds that carry {@code session}, {@code seq} and {@code prev}. */
    public boolean sessionScoped() {
        return sessionScoped;
    }

    public static Optional<ReceiptKind> fromWire(String wire) {
        return Arrays.stream(values()).filter(k -> k.wire.equals(wire)).findFirst();
    }

    @Override
    public String toString() {
        return wire;
    }
}
