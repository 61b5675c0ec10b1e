package io.mcpledger.domain.session;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.receipt.Receipt;

/**
 * A receipt of a client stream (contract section 15): {@code call.admitted}, {@code call.refused}, {@code
 * call.outcome} or {@code call.resolved} of a call made without a session. One event type serves them all: the
 * receipt's kind says which, and {@link ClientFold} folds them.
 */
public record ClientEvent(String tokenRef, Receipt receipt) implements LedgerEvent {
}
