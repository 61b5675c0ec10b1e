package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** An operator resolved a call whose outcome was unknown ({@code call.resolved}). */
public record CallResolved(String sessionId, Receipt receipt) implements SessionEvent {
}
