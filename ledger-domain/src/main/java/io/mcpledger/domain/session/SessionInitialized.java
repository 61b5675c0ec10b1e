package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A session was opened ({@code session.initialized}). */
public record SessionInitialized(String sessionId, Receipt receipt) implements SessionEvent {
}
