package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A call was refused; it must not be forwarded ({@code call.refused}). */
public record CallRefused(String sessionId, Receipt receipt) implements SessionEvent {
}
