package io.mcpledger.query;

/**
 * A flush that contradicts what the store holds: a second decision for a call the store already has. Only a log with
 * two decisions for one request in a session can cause it, so the projections stop, as when the fold refuses a
 * receipt.
 */
public class ProjectionConflictException extends RuntimeException {
    public ProjectionConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
