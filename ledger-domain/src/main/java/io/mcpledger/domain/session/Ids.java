package io.mcpledger.domain.session;

import java.time.Instant;

/** Makes the ids receipts and capabilities carry; tests swap in a counter for exact receipts. */
public interface Ids {
    /** A new receipt id for a receipt made at {@code at}. */
    String receiptId(Instant at);

    String capabilityId();
}
