package io.mcpledger.domain.receipt;

/** A receipt line that is not a well-formed, canonical receipt; the message says what is wrong. */
public class InvalidReceiptException extends Exception {
    public InvalidReceiptException(String message) {
        super(message);
    }

    public InvalidReceiptException(String message, Throwable cause) {
        super(message, cause);
    }
}
