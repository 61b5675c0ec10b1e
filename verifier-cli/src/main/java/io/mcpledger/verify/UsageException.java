package io.mcpledger.verify;

/** A usage or I/O problem: the command prints its one-line message and exits 2, having verified nothing. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
