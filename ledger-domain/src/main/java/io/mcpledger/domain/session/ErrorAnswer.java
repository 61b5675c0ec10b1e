package io.mcpledger.domain.session;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.Receipt;

/**
 * An error that still appended (or repeats) a receipt, such as 410 on an idle session, which records
 * {@code session.expired}; {@code receipt} is null when nothing new was appended.
 */
public record ErrorAnswer(ErrorCode code, String message, Receipt receipt) implements Answer {
}
