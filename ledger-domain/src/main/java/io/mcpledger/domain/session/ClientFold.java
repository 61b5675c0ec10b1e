package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;

/**
 * The one fold of a client stream (contract section 15: the calls a client makes without a session, under MCP
 * {@code 2026-07-28}), shared by the ledger and the offline verifier. Like {@link SessionFold} it reads only the
 * receipt, the state and the stream's calls: it checks the chain ({@code seq} 1, 2, 3..., each {@code prev} the hash
 * of the receipt before), that the stream starts with a decision and that every decision names the principal of the
 * first, and folds each call by {@link CallFold}'s rules.
 */
public final class ClientFold {
    private ClientFold() {
    }

    /**
     * Applies one receipt of the client stream {@code r.client()}. {@code state} is null exactly when it is the
     * stream's first; the returned state is the same object, changed, or a new one. {@code calls} is the stream's call
     * book.
     */
    public static ClientState apply(ClientState state, Receipt r, CallBook calls) {
        String tokenRef = r.client();
        if (tokenRef == null) {
            throw new FoldException(r.kind() + " " + r.id() + " belongs to no client stream");
        }
        boolean decision = r.kind() == ReceiptKind.CALL_ADMITTED || r.kind() == ReceiptKind.CALL_REFUSED;
        if (state == null) {
            if (!decision) {
                throw new FoldException("client " + tokenRef + " has no decision before its " + r.kind());
            }
            state = new ClientState(tokenRef);
        } else if (!state.tokenRef.equals(tokenRef)) {
            throw new FoldException("receipt of client " + tokenRef + " applied to client " + state.tokenRef);
        }
        SessionChain.require("client " + tokenRef, state.seq, state.head, r);
        String incarnation = null;
        if (decision) {
            // Read where they stand in the line: a decision's principal and edge incarnation are strings in every
            // receipt the ledger signs. Anything else is read from the body's tree, as the fold always read them.
            String principal = r.bodyString("principal");
            if (principal == null) {
                principal = r.body().path("principal").asText(null);
            }
            if (principal == null) {
                throw new FoldException(r.kind() + " " + r.id() + " of client " + tokenRef + " names no principal");
            }
            if (state.principal == null) {
                state.principal = principal;
            } else if (!state.principal.equals(principal)) {
                throw new FoldException("client " + tokenRef + " is principal " + state.principal + ", but "
                        + r.kind() + " " + r.id() + " names " + principal);
            }
            incarnation = r.bodyString("edge", "incarnation");
            if (incarnation == null) {
                Edge edge = Edge.fromJson(r.body().get("edge"));
                incarnation = edge == null ? null : edge.incarnation();
            }
        }
        CallFold.apply(r, calls, incarnation, state);
        state.seq = r.seq();
        state.head = r.hash();
        return state;
    }

}
