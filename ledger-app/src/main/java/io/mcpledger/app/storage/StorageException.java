package io.mcpledger.app.storage;

/** The ledger's database could not be opened or used; the message says why and what to do. */
public class StorageException extends Exception {
    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
