package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A call was admitted ({@code call.admitted}). */
public record CallAdmitted(String sessionId, Receipt receipt) implements SessionEvent {
}
