package io.mcpledger.app.engine;

/**
 * A command that was not stored through no fault of its own (the commit it shared failed, or the ledger
 * is shutting down): nothing it would have appended exists, and sending it again is safe.
 */
public class NotStoredException extends IllegalStateException {
    public NotStoredException(String message, Throwable cause) {
        super(message, cause);
    }
}
