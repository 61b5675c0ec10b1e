package io.mcpledger.domain.policy;

/** A policy document that does not follow contract section 5; the message names the problem. */
public class InvalidPolicyException extends Exception {
    public InvalidPolicyException(String message) {
        super(message);
    }
}
