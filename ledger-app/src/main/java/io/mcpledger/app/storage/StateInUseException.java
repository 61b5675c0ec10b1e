package io.mcpledger.app.storage;

import java.nio.file.Path;

/** Another process has the ledger's database open, so this one must not start. */
public class StateInUseException extends StorageException {
    public StateInUseException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The one message for it: who holds the state at {@code stateDirectory}, and what to do. */
    public static StateInUseException at(Path stateDirectory, Throwable cause) {
        return new StateInUseException("the ledger state at " + stateDirectory + " is in use by another process; "
                + "stop that process or pass a different --state directory", cause);
    }
}
