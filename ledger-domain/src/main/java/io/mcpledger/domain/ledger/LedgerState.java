package io.mcpledger.domain.ledger;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.CallBook;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionState;

/**
 * Everything the log says, as {@link LedgerFold} reads and changes it: sessions and their calls, client streams (calls
 * made without a session) and theirs, revoked principals, the active policy, and which session each capability was
 * issued to. {@link MemoryLedgerState} holds it all in
 * memory (the verifier); the ledger's projections keep it in the store.
 */
public interface LedgerState {
    /** The session with this id, or null when it was never initialized. */
    SessionState session(String id);

    /** The calls of a session (also of one about to be initialized). */
    CallBook calls(String sessionId);

    /**
     * A session receipt was folded into {@code after}: a new state when {@code r} initialized it, else the one
     * {@link #session} returned, changed. {@code wasActive} tells what it was before.
     */
    void sessionFolded(SessionState after, boolean wasActive, Receipt r);

    /** A capability id was issued to a session (at initialize or resume). */
    void capabilityIssued(String capabilityId, String sessionId);

    /** Records a principal's revocation; false when the tokenRef was already revoked. */
    boolean principalRevoked(String tokenRef, Receipt r);

    /** A policy became active. */
    void policyActivated(String hash, Receipt r);

    /** The client stream of this tokenRef (contract section 15), or null while it has no receipt. */
    ClientState client(String tokenRef);

    /** The calls of a client stream (also of one about to start). */
    CallBook clientCalls(String tokenRef);

    /**
     * A client stream's receipt was folded into {@code after}: a new state when {@code r} started the stream, else the
     * one {@link #client} returned, changed.
     */
    void clientFolded(ClientState after, Receipt r);
}
