package io.mcpledger.app.engine;

import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.RequestClientCall;
import io.mcpledger.query.LedgerProjector;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * What the ledger does around each batch of commands: before it is decided, folds what other nodes appended
 * ({@link LogFollower}) and notes the authority it is decided under ({@link LedgerEventStorage#AUTHORITY}); while it
 * is decided, refuses an initialize for which the active sessions, counted on every node, leave no room. The append
 * checks both again under the log's lock, where nothing can change them. A batch found stale there is decided again
 * holding that lock from the start (on a shared database), so a batch is decided at most twice.
 */
final class LedgerBatchGuard implements GroupCommitCommandBus.BatchGuard {
    /** The root unit of work's resource counting the sessions the batch opens so far. */
    private static final String OPENED = "ledger.sessions-opened";

    private final LogFollower follower;
    private final LedgerProjector projector;
    private final int maxActiveSessions;
    private final LongSupplier lockLog;

    /**
     * {@code lockLog} locks the log's {@code log_sequence} row in the current unit of work's transaction, until it
     * ends, and returns the log's committed size.
     */
    LedgerBatchGuard(LogFollower follower, LedgerProjector projector, int maxActiveSessions, LongSupplier lockLog) {
        this.lockLog = lockLog;
        this.follower = follower;
        this.projector = projector;
        this.maxActiveSessions = maxActiveSessions;
    }

    @Override
    public void beforeBatch(UnitOfWork<?> root, int attempt) {
        if (attempt > 1 && follower.shared()) {
            // The attempt before was stale: this one takes the log's row before it decides, so nothing can change
            // under it and it is the last. The first attempt of a batch stays optimistic: nodes whose batches touch
            // different sessions decide in parallel.
            follower.followTo(lockLog.getAsLong());
        } else {
            follower.follow();
        }
        root.resources().put(LedgerEventStorage.AUTHORITY, projector.authorityChanges());
        root.resources().put(OPENED, new int[1]);
    }

    /**
     * Reads ahead, in one query, whether the requestIds of the batch's admissions are new ({@link
     * LedgerProjector#readAhead}): deciding an admission asks that first, and on PostgreSQL each asking would be a
     * round trip of its own.
     */
    @Override
    public void beforeDecide(List<CommandMessage<?>> commands) {
        List<LedgerProjector.WantedCall> wanted = new ArrayList<>(commands.size());
        for (CommandMessage<?> command : commands) {
            if (command.getPayload() instanceof RequestCall call) {
                wanted.add(new LedgerProjector.WantedCall(call.sessionId(), false, call.requestId()));
            } else if (command.getPayload() instanceof RequestClientCall call) {
                wanted.add(new LedgerProjector.WantedCall(call.tokenRef(), true, call.requestId()));
            }
        }
        projector.readAhead(wanted);
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
