package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A session's capability was revoked ({@code capability.revoked}). */
public record CapabilityRevoked(String sessionId, Receipt receipt) implements SessionEvent {
}
