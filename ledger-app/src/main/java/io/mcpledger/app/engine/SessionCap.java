package io.mcpledger.app.engine;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.query.LedgerProjector;

/**
 * The {@code --max-active-sessions} cap. Initializes in flight hold a reservation until they are answered (by
 * then the projection counts the new session), so concurrent initializes can never overshoot the cap. With several
 * nodes each reserves against its own view; {@link LedgerBatchGuard} and the append then count every node's sessions.
 */
public final class SessionCap {
    private final int max;
    private final LedgerProjector projection;
    private int inFlight;

    public SessionCap(int max, LedgerProjector projection) {
        this.max = max;
        this.projection = projection;
    }

    /** Reserves room for one more active session; false when the cap is reached. */
    public synchronized boolean tryReserve() {
        if (projection.activeSessions() + inFlight >= max) {
            return false;
        }
        inFlight++;
        return true;
    }

    /** Ends a reservation once its initialize was answered, either way. */
    public synchronized void release() {
        inFlight--;
    }

    /** The refusal of an initialize when the cap is reached. */
    public static LedgerException reached(int max) {
        return new LedgerException(ErrorCode.SESSION_LIMIT, "the ledger already has " + max
                + " active sessions (--max-active-sessions); retry after sessions end or expire");
    }

    public int max() {
        return max;
    }
}
