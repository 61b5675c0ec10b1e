package io.mcpledger.domain.ledger;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.FoldException;
import io.mcpledger.domain.session.SessionFold;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStatus;

/** Folds any receipt into the whole-ledger state; session receipts go through {@link SessionFold}. */
public final class LedgerFold {
    private LedgerFold() {
    }

    public static LedgerState apply(LedgerState state, Receipt r) {
        switch (r.kind()) {
            case POLICY_ACTIVATED -> state.policy = r.bodyText("policy");
            case PRINCIPAL_REVOKED -> {
                String tokenRef = r.bodyText("tokenRef");
                if (!state.revokedPrincipals.add(tokenRef)) {
                    throw new FoldException("principal " + tokenRef + " is revoked twice");
                }
            }
            default -> {
                SessionState before = state.sessions.get(r.session());
                boolean wasActive = before != null && before.status() == SessionStatus.ACTIVE;
                SessionState after = SessionFold.apply(before, r);
                if (before == null) {
                    state.sessions.put(after.id(), after);
                }
                boolean isActive = after.status() == SessionStatus.ACTIVE;
                if (wasActive != isActive) {
                    state.activeSessions += isActive ? 1 : -1;
                }
                if (after.capability() != null) {
                    state.capabilityOwners.putIfAbsent(after.capability().id(), after.id());
                }
            }
        }
        state.size++;
        return state;
    }
}
