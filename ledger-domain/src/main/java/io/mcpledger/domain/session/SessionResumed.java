package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A session was resumed, with a fresh capability unless revoked ({@code session.resumed}). */
public record SessionResumed(String sessionId, Receipt receipt) implements SessionEvent {
}
