package io.mcpledger.app.storage;

/** The database holds another ledger's log, or was written by a newer ledger: the node refuses to start. */
public final class MismatchedDatabaseException extends StorageException {
    public MismatchedDatabaseException(String message) {
        super(message);
    }
}
