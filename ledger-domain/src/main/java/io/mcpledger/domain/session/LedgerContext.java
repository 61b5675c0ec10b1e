package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.ReceiptSigner;
import java.time.Duration;

/** What the aggregates need besides their own state: the signer, the authority, the idle expiry and ids. */
public record LedgerContext(ReceiptSigner signer, Authority authority, Duration idleExpiry, Ids ids) {
}
