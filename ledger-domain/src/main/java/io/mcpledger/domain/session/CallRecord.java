package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.util.Objects;

/**
 * What the log says about one requestId in a session: its first decision (admitted or refused), the edge incarnation
 * current then, its outcome and an operator's resolution, with their receipts. Changed only through a
 * {@link CallBook}, as {@link SessionFold} decides.
 */
public final class CallRecord {
    /** Where an admitted call stands before any resolution. */
    public enum Outcome { PENDING, OK, ERROR, UNKNOWN }

    private final String requestId;
    private final Receipt decision;
    private final String incarnation;
    private CallStatus status;
    private Receipt outcomeReceipt;
    private Receipt resolutionReceipt;

    CallRecord(String requestId, Receipt decision, String incarnation) {
        this.requestId = requestId;
        this.decision = decision;
        this.incarnation = incarnation;
        this.status = decision.kind() == ReceiptKind.CALL_ADMITTED
                ? CallStatus.PENDING : CallStatus.REFUSED;
    }

    /**
     * A record read back from the log: the decision, the status the receipts after it reached, and the latest
     * outcome and the resolution (null when there are none). The incarnation is not kept in the log's call index.
     */
    public static CallRecord restored(String requestId, Receipt decision, CallStatus status, Receipt outcome,
                                      Receipt resolution) {
        CallRecord call = new CallRecord(requestId, decision, null);
        call.status = Objects.requireNonNull(status, "status");
        call.outcomeReceipt = outcome;
        call.resolutionReceipt = resolution;
        return call;
    }

    public String requestId() {
        return requestId;
    }

    /** The first {@code call.admitted} or {@code call.refused} receipt of this request. */
    public Receipt decision() {
        return decision;
    }

    public boolean admitted() {
        return status.admitted();
    }

    public CallStatus status() {
        return status;
    }

    /** The edge incarnation that was current when the call was admitted (null when absent or not known). */
    public String incarnation() {
        return incarnation;
    }

    /** The outcome an edge (or a resume) recorded; {@link Outcome#UNKNOWN} stays after a resolution. */
    public Outcome outcome() {
        return switch (status) {
            case REFUSED, PENDING -> Outcome.PENDING;
            case OK -> Outcome.OK;
            case ERROR -> Outcome.ERROR;
            case UNKNOWN, RESOLVED -> Outcome.UNKNOWN;
        };
    }

    /** The latest {@code call.outcome} receipt, or null. */
    public Receipt outcomeReceipt() {
        return outcomeReceipt;
    }

    /** {@code ok}, {@code error} or {@code not_run} once an operator resolved an unknown call; else null. */
    public String resolution() {
        return resolutionReceipt == null ? null : resolutionReceipt.bodyText("status");
    }

    public Receipt resolutionReceipt() {
        return resolutionReceipt;
    }

    void settle(CallStatus next, Receipt receipt) {
        if (next == CallStatus.RESOLVED) {
            resolutionReceipt = receipt;
        } else {
            outcomeReceipt = receipt;
        }
        status = next;
    }

    /** Value equality, so a state rebuilt from the same receipts equals the original. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CallRecord other && requestId.equals(other.requestId) && decision.equals(other.decision)
                && Objects.equals(incarnation, other.incarnation) && status == other.status
                && Objects.equals(outcomeReceipt, other.outcomeReceipt)
                && Objects.equals(resolutionReceipt, other.resolutionReceipt);
    }

    @Override
    public int hashCode() {
        return requestId.hashCode();
    }
}
