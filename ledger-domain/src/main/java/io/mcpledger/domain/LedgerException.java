package io.mcpledger.domain;

/**
 * A refused request that appended nothing: the contract's error code and a message for the caller.
 * Thrown from command handlers, so the unit of work rolls back and the log is untouched.
 */
public class LedgerException extends RuntimeException {
    private final ErrorCode code;

    public LedgerException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
