package io.mcpledger.domain.session;

/** Makes the ids receipts and capabilities carry; tests swap in a counter for exact receipts. */
public interface Ids {
    String receiptId();

    String capabilityId();
}
