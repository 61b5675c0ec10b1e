package io.mcpledger.domain;

import io.mcpledger.domain.receipt.Receipt;

/** Every event the ledger appends carries the signed receipt that is its durable form. */
public interface LedgerEvent {
    Receipt receipt();
}
