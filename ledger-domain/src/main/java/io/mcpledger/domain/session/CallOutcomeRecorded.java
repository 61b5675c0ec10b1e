package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A call's outcome was recorded, or marked unknown on a new edge incarnation ({@code call.outcome}). */
public record CallOutcomeRecorded(String sessionId, Receipt receipt) implements SessionEvent {
}
