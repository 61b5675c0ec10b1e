package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/** An admission decision: admitted when {@code refusal} is null. {@code capabilityId} names the capability checked. */
public record CallAnswer(Receipt receipt, Reason refusal, String capabilityId) implements Answer {
    public boolean admitted() {
        return refusal == null;
    }
}
