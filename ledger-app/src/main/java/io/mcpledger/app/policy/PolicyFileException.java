package io.mcpledger.app.policy;

/** A policy file that cannot be read or is not a valid policy; the one-line message names the file and the problem. */
public class PolicyFileException extends Exception {
    public PolicyFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
