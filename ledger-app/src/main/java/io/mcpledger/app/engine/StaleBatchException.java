package io.mcpledger.app.engine;

import org.axonframework.modelling.command.ConcurrencyException;

/**
 * A batch was decided on state that changed before it could be appended (another node, or another worker, appended
 * to one of its streams, changed the authority, or opened sessions up to the cap): nothing of it is stored, and
 * {@link GroupCommitCommandBus} decides its commands again on the state as it now is.
 */
final class StaleBatchException extends ConcurrencyException {
    StaleBatchException(String message) {
        super(message);
    }
}
