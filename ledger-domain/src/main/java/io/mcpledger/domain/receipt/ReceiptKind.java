package io.mcpledger.domain.receipt;

import java.util.Optional;

/** The kinds of receipt of contract section 6, with their wire names. */
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
        return wire == null ? Optional.empty() : Optional.ofNullable(fromWire(wire, 0, wire.length()));
    }

    /** The kind whose wire name is text[from, to), or null; every line of the log names one, read where it stands. */
    static ReceiptKind fromWire(String text, int from, int to) {
        for (ReceiptKind kind : VALUES) {
            if (kind.wire.length() == to - from && text.startsWith(kind.wire, from)) {
                return kind;
            }
        }
        return null;
    }

    private static final ReceiptKind[] VALUES = values();

    @Override
    public String toString() {
        return wire;
    }
}
