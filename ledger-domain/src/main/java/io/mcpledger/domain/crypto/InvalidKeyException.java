package io.mcpledger.domain.crypto;

/** A key file or key string that cannot be used, with a message saying why. */
public class InvalidKeyException extends Exception {
    public InvalidKeyException(String message) {
        super(message);
    }

    public InvalidKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
