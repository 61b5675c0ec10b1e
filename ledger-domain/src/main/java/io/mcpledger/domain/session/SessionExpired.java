package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A session was idle longer than the expiry ({@code session.expired}). */
public record SessionExpired(String sessionId, Receipt receipt) implements SessionEvent {
}
