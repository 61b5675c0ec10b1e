package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The calls of a session aggregate or a client stream's aggregate: those it changed since its last commit (or since it
 * was sourced from its events), in memory, over the committed ones its {@link SessionHistory} reads from the ledger.
 * Memory holds what no commit has stored yet, so it is emptied only after a commit ({@link #forget}), never before.
 */
final class SessionCalls implements CallBook {
    /** The session id, or the client stream's tokenRef when {@link #client}. */
    private final String stream;
    private final boolean client;
    private final CallRecords recent = new CallRecords();
    /**
     * RequestIds the history had no decision for, asked during the command being handled: the command's own fold asks
     * again when it applies the decision, and the answer cannot have changed in between (another decision on the
     * session would make this batch's append stale). Emptied with every command and commit.
     */
    private final Set<String> absent = new HashSet<>();
    private SessionHistory history = SessionHistory.NONE;

    SessionCalls(String sessionId) {
        this(sessionId, false);
    }

    private SessionCalls(String stream, boolean client) {
        this.stream = stream;
        this.client = client;
    }

    /** The calls of the client stream {@code tokenRef}. */
    static SessionCalls ofClient(String tokenRef) {
        return new SessionCalls(tokenRef, true);
    }

    void readFrom(SessionHistory history) {
        this.history = history;
        absent.clear();
    }

    /** The call's record, from memory or the committed history; null when the session has no decision for it. */
    CallRecord call(String requestId) {
        CallRecord call = recent.call(requestId);
        if (call == null && !absent.contains(requestId)) {
            call = client ? history.clientCall(stream, requestId) : history.call(stream, requestId);
            if (call != null) {
                recent.keep(call);
            } else {
                absent.add(requestId);
            }
        }
        return call;
    }

    /** Every admitted call without an outcome, committed or not, in the order they were admitted. */
    List<CallRecord> pending() {
        Map<String, CallRecord> pending = new LinkedHashMap<>();
        for (CallRecord committed : client ? history.clientPendingCalls(stream) : history.pendingCalls(stream)) {
            if (recent.call(committed.requestId()) == null) {
                // Kept: the resume that asks records an outcome on each of them next.
                recent.keep(committed);
                pending.put(committed.requestId(), committed);
            }
        }
        for (CallRecord call : recent.all()) {
            if (call.status() == CallStatus.PENDING) {
                pending.put(call.requestId(), call);
            } else {
                pending.remove(call.requestId());
            }
        }
        List<CallRecord> ordered = new ArrayList<>(pending.values());
        ordered.sort(Comparator.comparingLong(c -> c.decision().seq()));
        return ordered;
    }

    /** Drops the calls held in memory; only once they are committed. */
    void forget() {
        recent.clear();
        absent.clear();
    }

    @Override
    public CallStatus status(String requestId) {
        CallRecord call = call(requestId);
        return call == null ? null : call.status();
    }

    @Override
    public void decided(String requestId, Receipt decision, String incarnation) {
        recent.decided(requestId, decision, incarnation);
    }

    @Override
    public void settled(String requestId, CallStatus status, Receipt receipt) {
        call(requestId);
        recent.settled(requestId, status, receipt);
    }
}
