package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.ReceiptSigner;
import java.time.Duration;

/**
 * What the aggregates need besides their own state: the signer, the authority, the idle expiry, ids, and the
 * committed history a session's decisions may need.
 */
public record LedgerContext(ReceiptSigner signer, Authority authority, Duration idleExpiry, Ids ids,
                            SessionHistory history) {
    /** A context without history, for aggregates sourced from every event of their stream. */
    public LedgerContext(ReceiptSigner signer, Authority authority, Duration idleExpiry, Ids ids) {
        this(signer, authority, idleExpiry, ids, SessionHistory.NONE);
    }
}
