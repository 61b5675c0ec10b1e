package io.mcpledger.verify;

/** The exit statuses of contract section 10: part of the contract, since scripts branch on them. */
public final class Exit {
    /** Valid; for {@code investigate}, the call's outcome is known. */
    public static final int OK = 0;
    /** The log, receipt, proof or checkpoint does not verify. */
    public static final int INVALID = 1;
    /** Bad usage or an I/O error: nothing was verified. */
    public static final int USAGE = 2;
    /** {@code investigate}: the outcome is unknown or still pending. */
    public static final int OUTCOME_UNKNOWN = 3;
    /** {@code investigate}: no such request. */
    public static final int NOT_FOUND = 4;

    private Exit() {
    }
}
