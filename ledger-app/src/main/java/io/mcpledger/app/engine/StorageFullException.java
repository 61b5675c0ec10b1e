package io.mcpledger.app.engine;

/**
 * A command refused before it was decided because the disk holding the store is under its reserve
 * ({@link io.mcpledger.app.storage.DiskSpace}): nothing was stored, and sending it again once space is freed is safe.
 */
public final class StorageFullException extends NotStoredException {
    public StorageFullException(String message) {
        super(message, null);
    }
}
