package io.mcpledger.app.storage;

/** Another process has the ledger's database open, so this one must not start. */
public class StateInUseException extends StorageException {
    public StateInUseException(String message, Throwable cause) {
        super(message, cause);
    }
}
