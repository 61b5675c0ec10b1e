package io.mcpledger.domain.session;

/** A receipt that cannot follow the state before it (broken chain, unknown session, call not admitted). */
public class FoldException extends RuntimeException {
    public FoldException(String message) {
        super(message);
    }
}
