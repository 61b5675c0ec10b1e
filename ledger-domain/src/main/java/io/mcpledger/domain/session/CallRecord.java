package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.util.Objects;

/**
 * What the log says about one requestId in a session: its first decision (admitted or refused), the
 * authority in force then, and its outcome or resolution. Mutated only by {@link SessionFold}.
 */
public final class CallRecord {
    /** Where an admitted call stands. */
    public enum Outcome { PENDING, OK, ERROR, UNKNOWN }

    private final String requestId;
    private final Receipt decision;
    private final String incarnation;
    private Outcome outcome;
    private Receipt outcomeReceipt;
    private String resolution;
    private Receipt resolutionReceipt;

    CallRecord(String requestId, Receipt decision, String incarnation) {
        this.requestId = requestId;
        this.decision = decision;
        this.incarnation = incarnation;
        this.outcome = Outcome.PENDING;
    }

    public String requestId() {
        return requestId;
    }

    /** The first {@code call.admitted} or {@code call.refused} receipt of this request. */
    public Receipt decision() {
        return decision;
    }

    public boolean admitted() {
        return decision.kind() == ReceiptKind.CALL_ADMITTED;
    }

    /** The edge incarnation that was current when the call was admitted (null when absent). */
    public String incarnation() {
        return incarnation;
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The latest {@code call.outcome} receipt, or null. */
    public Receipt outcomeReceipt() {
        return outcomeReceipt;
    }

    /** {@code ok}, {@code error} or {@code not_run} once an operator resolved an unknown call; else null. */
    public String resolution() {
        return resolution;
    }

    public Receipt resolutionReceipt() {
        return resolutionReceipt;
    }

    void recordOutcome(Outcome outcome, Receipt receipt) {
        this.outcome = outcome;
        this.outcomeReceipt = receipt;
    }

    void recordResolution(String status, Receipt receipt) {
        this.resolution = status;
        this.resolutionReceipt = receipt;
    }

    /** Value equality, so a state rebuilt from the same receipts equals the original. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CallRecord other && requestId.equals(other.requestId) && decision.equals(other.decision)
                && Objects.equals(incarnation, other.incarnation) && outcome == other.outcome
                && Objects.equals(outcomeReceipt, other.outcomeReceipt)
                && Objects.equals(resolution, other.resolution)
                && Objects.equals(resolutionReceipt, other.resolutionReceipt);
    }

    @Override
    public int hashCode() {
        return requestId.hashCode();
    }
}
