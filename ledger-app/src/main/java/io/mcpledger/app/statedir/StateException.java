package io.mcpledger.app.statedir;

/** The state directory cannot be created or used as it is; the message names the file, the problem and the fix. */
public class StateException extends Exception {
    public StateException(String message) {
        super(message);
    }

    public StateException(String message, Throwable cause) {
        super(message, cause);
    }
}
