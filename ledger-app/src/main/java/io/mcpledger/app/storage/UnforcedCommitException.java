package io.mcpledger.app.storage;

import org.axonframework.common.jdbc.JdbcException;

/**
 * A transaction was committed but could not be forced to disk: it is in the store and may or may not survive a power
 * loss, so it must not be acknowledged, and neither may anything after it (see {@link ForcedWrites}).
 */
public class UnforcedCommitException extends JdbcException {
    public UnforcedCommitException(String message, Throwable cause) {
        super(message, cause);
    }
}
