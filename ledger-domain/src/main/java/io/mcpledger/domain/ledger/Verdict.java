package io.mcpledger.domain.ledger;

/** What the log says became of one call (contract section 10), with its wire name. */
public enum Verdict {
    COMPLETED_OK("completed_ok"),
    COMPLETED_ERROR("completed_error"),
    REFUSED("refused"),
    NOT_RUN("not_run"),
    OUTCOME_UNKNOWN("outcome_unknown"),
    PENDING("pending"),
    NOT_FOUND("not_found");

    private final String wire;

    Verdict(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    @Override
    public String toString() {
        return wire;
    }
}
