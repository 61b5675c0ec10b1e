package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** A session was deleted and became a tombstone ({@code session.deleted}). */
public record SessionDeleted(String sessionId, Receipt receipt) implements SessionEvent {
}
