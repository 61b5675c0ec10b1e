package io.mcpledger.app.engine;

import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.query.LedgerProjector;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * What the ledger does around each batch of commands: before it is decided, folds what other nodes appended
 * ({@link LogFollower}) and notes the authority it is decided under ({@link LedgerEventStorage#AUTHORITY}); while it
 * is decided, refuses an initialize for which the active sessions, counted on every node, leave no room. The append
 * checks both again under the log's lock, where nothing can change them.
 */
final class LedgerBatchGuard implements GroupCommitCommandBus.BatchGuard {
    /** The root unit of work's resource counting the sessions the batch opens so far. */
    private static final String OPENED = "ledger.sessions-opened";

    private final LogFollower follower;
    private final LedgerProjector projector;
    private final int maxActiveSessions;

    LedgerBatchGuard(LogFollower follower, LedgerProjector projector, int maxActiveSessions) {
        this.follower = follower;
        this.projector = projector;
        this.maxActiveSessions = maxActiveSessions;
    }

    @Override
    public void beforeBatch(UnitOfWork<?> root) {
        follower.follow();
        root.resources().put(LedgerEventStorage.AUTHORITY, projector.authorityChanges());
        root.resources().put(OPENED, new int[1]);
    }

    @Override
    public RuntimeException refusal(CommandMessage<?> command, UnitOfWork<?> root) {
        if (!(command.getPayload() instanceof InitializeSession)) {
            return null;
        }
        int[] opened = root.getResource(OPENED);
        if (projector.activeSessions() + opened[0] >= maxActiveSessions) {
            return SessionCap.reached(maxActiveSessions);
        }
        opened[0]++;
        return null;
    }
}
