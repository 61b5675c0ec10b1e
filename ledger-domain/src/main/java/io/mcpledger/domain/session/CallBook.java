package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;

/**
 * One session's calls as {@link SessionFold} reads and records them. The fold decides every transition; a book only
 * remembers, as much as its owner needs: the verifier keeps every receipt in memory ({@link CallRecords}), the
 * projections keep a status and log positions in the store, the aggregate keeps the calls of the batch it decides.
 */
public interface CallBook {
    /** The status of the call with this requestId, or null when the session has no decision for it. */
    CallStatus status(String requestId);

    /**
     * Whether a requestId about to be admitted already has a decision: {@link #status} by default. A book that keeps
     * its calls in a store may answer from memory alone and leave a second decision to the store's unique key, so that
     * admitting a new call costs no read of the store.
     */
    default boolean decidedBefore(String requestId) {
        return status(requestId) != null;
    }

    /** The first decision on a requestId: {@code call.admitted} or {@code call.refused}. */
    void decided(String requestId, Receipt decision, String incarnation);

    /**
     * A later receipt of an admitted call: an outcome ({@link CallStatus#OK}, {@link CallStatus#ERROR},
     * {@link CallStatus#UNKNOWN}) or an operator's resolution ({@link CallStatus#RESOLVED}).
     */
    void settled(String requestId, CallStatus status, Receipt receipt);
}
