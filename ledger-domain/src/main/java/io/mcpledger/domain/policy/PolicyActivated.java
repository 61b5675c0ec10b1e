package io.mcpledger.domain.policy;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.receipt.Receipt;

/** A policy became active ({@code policy.activated}); the receipt names its hash, the event keeps the document. */
public record PolicyActivated(String policyStream, Receipt receipt, PolicyDocument document) implements LedgerEvent {
}
