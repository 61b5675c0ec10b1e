package io.mcpledger.domain.session;

/** Lifecycle of a session: {@code active}, then {@code expired} or {@code deleted}, both final. */
public enum SessionStatus {
    ACTIVE("active"), EXPIRED("expired"), DELETED("deleted");

    private final String wire;

    SessionStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
