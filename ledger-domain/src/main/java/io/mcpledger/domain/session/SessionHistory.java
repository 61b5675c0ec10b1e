package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.util.List;

/**
 * What a session (or client stream) aggregate reads of its committed past beyond its own state, which holds nothing that grows with
 * the session's history: earlier calls with their receipts, receipts by id, and capability owners. The ledger
 * answers from its projections and the log; an aggregate sourced from all its events needs none of it.
 */
public interface SessionHistory {
    /** Knows nothing: for aggregates that hold every call because they were sourced from every event. */
    SessionHistory NONE = new SessionHistory() {
        @Override
        public CallRecord call(String sessionId, String requestId) {
            return null;
        }

        @Override
        public List<CallRecord> pendingCalls(String sessionId) {
            return List.of();
        }

        @Override
        public Receipt receipt(String receiptId) {
            return null;
        }

        @Override
        public String capabilityOwner(String capabilityId) {
            return null;
        }

        @Override
        public CallRecord clientCall(String tokenRef, String requestId) {
            return null;
        }

        @Override
        public List<CallRecord> clientPendingCalls(String tokenRef) {
            return List.of();
        }
    };

    /** The committed record of a session's call, with its receipts; null when the session has no decision for it. */
    CallRecord call(String sessionId, String requestId);

    /** The session's committed admitted calls that have no outcome yet, in the order they were admitted. */
    List<CallRecord> pendingCalls(String sessionId);

    /** A committed receipt, or null. */
    Receipt receipt(String receiptId);

    /** The session a committed capability id was issued to, or null. */
    String capabilityOwner(String capabilityId);

    /** The committed record of a client stream's call (contract section 15), or null when it has no decision for it. */
    CallRecord clientCall(String tokenRef, String requestId);

    /** The client stream's committed admitted calls without an outcome, in the order they were admitted. */
    List<CallRecord> clientPendingCalls(String tokenRef);
}
