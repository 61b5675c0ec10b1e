package io.mcpledger.query;

import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionState;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where the projections live between starts: their state with the log position it has folded, written in one
 * transaction per flush, so that after any crash the stored projections are those of a prefix of the log and a start
 * folds only what lies after it. The ledger keeps them in its database; tests keep them in memory.
 */
public interface ProjectionStore {
    /** How far the stored projections have folded, and where the active policy is in the log. */
    record Meta(long position, long policyPosition, long policyActivations) {
        public static final Meta EMPTY = new Meta(0, -1, 0);
    }

    /**
     * A session: its key (the log position of its {@code session.initialized}), its state, and the position of its
     * latest receipt.
     */
    record StoredSession(long key, SessionState state, long headPosition) {
    }

    /**
     * A client stream (contract section 15): its key (the log position of its first receipt), its state, and the
     * position of its latest receipt. Its calls are stored as a session's, under this key.
     */
    record StoredClient(long key, ClientState state, long headPosition) {
    }

    /**
     * A call of a session or a client stream: the positions of its decision, of its latest outcome and of its resolution (-1 when
     * there is none), and its status.
     */
    record StoredCall(long sessionKey, String requestId, long decision, CallStatus status, long outcome,
                      long resolution) {
    }

    /** What names a call: the key of its session or client stream, and its requestId. */
    record CallKey(long sessionKey, String requestId) {
        /**
         * Mixed, unlike a record's default ({@code 31 * sessionKey + hash}): keys are log positions and request ids
         * such as "req-1", "req-2"..., which that default sends in droves to the same buckets.
         */
        @Override
        public int hashCode() {
            return Long.hashCode(sessionKey * 0x9E3779B97F4A7C15L) ^ requestId.hashCode();
        }
    }

    /**
     * Everything that changed since the last flush, to be written in one transaction. A session or call keyed at or
     * after the position the store held before (the last flush's) is not in the store yet; one keyed before it is.
     */
    record Flush(Meta meta, List<StoredSession> sessions, List<StoredCall> calls,
                 List<StoredCall> pendingAdded, List<StoredCall> pendingRemoved, Map<String, String> capabilityOwners,
                 Map<String, Long> revokedPrincipals, List<StoredClient> clients) {
        /** A flush that changes no client stream. */
        public Flush(Meta meta, List<StoredSession> sessions, List<StoredCall> calls, List<StoredCall> pendingAdded,
                     List<StoredCall> pendingRemoved, Map<String, String> capabilityOwners,
                     Map<String, Long> revokedPrincipals) {
            this(meta, sessions, calls, pendingAdded, pendingRemoved, capabilityOwners, revokedPrincipals, List.of());
        }
    }

    Meta meta();

    StoredSession session(String id);

    /** The id of the session with this key, or null. */
    String sessionId(long key);

    /** The client stream of this tokenRef, or null. */
    StoredClient client(String tokenRef);

    /** The tokenRef of the client stream with this key, or null. */
    String clientTokenRef(long key);

    /** The tokenRefs of the client streams with calls pending at the last flush, in tokenRef order. */
    List<String> clientsWithPendingCalls();

    /** Every client stream's object C, as JCS bytes, in tokenRef order, without holding them all. */
    void forEachClientView(Consumer<byte[]> consumer);

    /** A call of the session or client stream with this key. */
    StoredCall call(long sessionKey, String requestId);

    /**
     * The calls of these keys that the store holds, read at once (a batch's, before it is decided); a key the store
     * has no call for is left out.
     */
    default Map<CallKey, StoredCall> calls(Collection<CallKey> keys) {
        Map<CallKey, StoredCall> found = new HashMap<>();
        for (CallKey key : keys) {
            StoredCall call = call(key.sessionKey(), key.requestId());
            if (call != null) {
                found.put(key, call);
            }
        }
        return found;
    }

    /** The session's calls that were pending at the last flush, in decision order. */
    List<StoredCall> pendingCalls(long sessionKey);

    /** The keys of the sessions and client streams with a call of this requestId. */
    List<Long> sessionsWithRequest(String requestId);

    String capabilityOwner(String capabilityId);

    /** Every revoked principal's tokenRef with the position of its revocation. */
    Map<String, Long> revokedPrincipals();

    /** Every active session. */
    List<StoredSession> activeSessions();

    /** Up to {@code limit} sessions with ids after {@code after} (null: from the first), in id order. */
    List<StoredSession> sessions(String after, int limit);

    /**
     * The same, only the sessions issued to the client token whose SHA-256 is {@code tokenRef}: what an edge lists
     * (contract section 4), read through an index rather than by scanning every session.
     */
    List<StoredSession> sessionsOf(String tokenRef, String after, int limit);

    /** Every session's {@code SessionStateJson.view} in id order, without holding them all. */
    void forEachSessionView(Consumer<byte[]> consumer);

    /** Writes a flush atomically. */
    void write(Flush flush);

    /** Removes every projection: the store is as new. */
    void clear();
}
