package io.mcpledger.domain.ledger;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.ClientFold;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.FoldException;
import io.mcpledger.domain.session.SessionFold;
import io.mcpledger.domain.session.SessionState;

/**
 * Folds any receipt into the whole-ledger state; session receipts go through {@link SessionFold}, the receipts of a
 * client stream (calls made without a session) through {@link ClientFold}.
 */
public final class LedgerFold {
    private LedgerFold() {
    }

    public static <S extends LedgerState> S apply(S state, Receipt r) {
        switch (r.kind()) {
            case POLICY_ACTIVATED -> state.policyActivated(r.bodyText("policy"), r);
            case PRINCIPAL_REVOKED -> {
                String tokenRef = r.bodyText("tokenRef");
                if (!state.principalRevoked(tokenRef, r)) {
                    throw new FoldException("principal " + tokenRef + " is revoked twice");
                }
            }
            default -> {
                if (r.client() != null) {
                    ClientState before = state.client(r.client());
                    state.clientFolded(ClientFold.apply(before, r, state.clientCalls(r.client())), r);
                    return state;
                }
                SessionState before = state.session(r.session());
                boolean wasActive = before != null && before.active();
                String heldBefore = before == null ? null : before.capability().id();
                SessionState after = SessionFold.apply(before, r, state.calls(r.session()));
                if (!after.capability().id().equals(heldBefore)) {
                    state.capabilityIssued(after.capability().id(), after.id());
                }
                state.sessionFolded(after, wasActive, r);
            }
        }
        return state;
    }
}
