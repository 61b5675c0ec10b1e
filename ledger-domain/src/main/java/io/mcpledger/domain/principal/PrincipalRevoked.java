package io.mcpledger.domain.principal;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.receipt.Receipt;

/** A client token was revoked ({@code principal.revoked}). */
public record PrincipalRevoked(String tokenRef, Receipt receipt) implements LedgerEvent {
}
