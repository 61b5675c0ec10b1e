package io.mcpledger.domain.policy;

import io.mcpledger.domain.receipt.Receipt;

/** The active policy hash after an activation; {@code receipt} is null when that policy was already active. */
public record PolicyAnswer(String policy, Receipt receipt) {
}
