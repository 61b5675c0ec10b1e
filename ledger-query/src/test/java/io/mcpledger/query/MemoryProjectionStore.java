package io.mcpledger.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionStateJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The projections' store in memory, for tests: it keeps what the flushes wrote, and a new projector opened on it is
 * what a restart opens. Sessions are kept as their stored bytes, so a restart reads copies, as from a database.
 */
final class MemoryProjectionStore implements ProjectionStore {
    private record Row(long key, String id, long head, byte[] view, byte[] extra) {
    }

    private record ClientRow(long key, long head, byte[] view) {
    }

    private Meta meta = Meta.EMPTY;
    private final NavigableMap<String, Row> sessions = new TreeMap<>();
    private final Map<Long, String> ids = new HashMap<>();
    private final Map<Long, StoredCall> calls = new TreeMap<>();
    private final NavigableMap<Long, StoredCall> pending = new TreeMap<>();
    private final Map<String, String> owners = new HashMap<>();
    private final Map<String, Long> revoked = new HashMap<>();
    /** Client streams by tokenRef, as the JCS bytes of C with their key and head. */
    private final NavigableMap<String, ClientRow> clients = new TreeMap<>();
    int flushes;
    /** How many times a call was read on its own, and how many times calls were read together. */
    int callReads;
    int batchReads;

    @Override
    public synchronized Meta meta() {
        return meta;
    }

    @Override
    public synchronized StoredSession session(String id) {
        Row row = sessions.get(id);
        return row == null ? null : stored(row);
    }

    private static StoredSession stored(Row row) {
        return new StoredSession(row.key(), SessionStateJson.read(row.view(), row.extra()), row.head());
    }

    @Override
    public synchronized String sessionId(long key) {
        return ids.get(key);
    }

    @Override
    public synchronized StoredClient client(String tokenRef) {
        ClientRow row = clients.get(tokenRef);
        return row == null ? null
                : new StoredClient(row.key(), ClientState.fromJson(parse(row.view())), row.head());
    }

    @Override
    public synchronized String clientTokenRef(long key) {
        return clients.entrySet().stream().filter(e -> e.getValue().key() == key).map(Map.Entry::getKey)
                .findFirst().orElse(null);
    }

    @Override
    public synchronized List<String> clientsWithPendingCalls() {
        return pending.values().stream().map(c -> clientTokenRef(c.sessionKey())).filter(t -> t != null).distinct()
                .sorted().toList();
    }

    @Override
    public synchronized void forEachClientView(Consumer<byte[]> consumer) {
        clients.values().forEach(row -> consumer.accept(row.view()));
    }

    private static JsonNode parse(byte[] json) {
        try {
            return Canonical.parse(new String(json, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized StoredCall call(long sessionKey, String requestId) {
        callReads++;
        return calls.values().stream()
                .filter(c -> c.sessionKey() == sessionKey && c.requestId().equals(requestId))
                .findFirst().orElse(null);
    }

    /** Counted as one read of them all, not as a read of each. */
    @Override
    public synchronized Map<CallKey, StoredCall> calls(Collection<CallKey> keys) {
        batchReads++;
        int single = callReads;
        try {
            return ProjectionStore.super.calls(keys);
        } finally {
            callReads = single;
        }
    }

    @Override
    public synchronized List<StoredCall> pendingCalls(long sessionKey) {
        return pending.values().stream().filter(c -> c.sessionKey() == sessionKey).map(c -> calls.get(c.decision()))
                .toList();
    }

    @Override
    public synchronized List<Long> sessionsWithRequest(String requestId) {
        return calls.values().stream().filter(c -> c.requestId().equals(requestId)).map(StoredCall::sessionKey)
                .sorted().toList();
    }

    @Override
    public synchronized String capabilityOwner(String capabilityId) {
        return owners.get(capabilityId);
    }

    @Override
    public synchronized Map<String, Long> revokedPrincipals() {
        return new HashMap<>(revoked);
    }

    @Override
    public synchronized List<StoredSession> activeSessions() {
        List<StoredSession> active = new ArrayList<>();
        for (Row row : sessions.values()) {
            StoredSession s = stored(row);
            if (s.state().active()) {
                active.add(s);
            }
        }
        return active;
    }

    @Override
    public synchronized List<StoredSession> sessions(String after, int limit) {
        List<StoredSession> page = new ArrayList<>();
        for (Row row : (after == null ? sessions : sessions.tailMap(after, false)).values()) {
            if (page.size() == limit) {
                break;
            }
            page.add(stored(row));
        }
        return page;
    }

    @Override
    public synchronized List<StoredSession> sessionsOf(String tokenRef, String after, int limit) {
        List<StoredSession> page = new ArrayList<>();
        for (Row row : (after == null ? sessions : sessions.tailMap(after, false)).values()) {
            if (page.size() == limit) {
                break;
            }
            StoredSession s = stored(row);
            if (tokenRef.equals(s.state().tokenRef())) {
                page.add(s);
            }
        }
        return page;
    }

    @Override
    public synchronized void forEachSessionView(Consumer<byte[]> consumer) {
        sessions.values().forEach(row -> consumer.accept(row.view()));
    }

    @Override
    public synchronized void write(Flush flush) {
        // What SqlProjectionStore relies on to insert rather than update: rows keyed at or after the position the store
        // held before are new.
        long newFrom = meta.position();
        for (StoredSession s : flush.sessions()) {
            if (ids.containsKey(s.key()) != s.key() < newFrom) {
                throw new IllegalStateException("session key " + s.key() + (ids.containsKey(s.key()) ? " is" : " is not")
                        + " stored, but newFrom is " + newFrom);
            }
        }
        for (StoredCall c : flush.calls()) {
            if (calls.containsKey(c.decision()) != c.decision() < newFrom) {
                throw new IllegalStateException("call decided at " + c.decision() + (calls.containsKey(c.decision())
                        ? " is" : " is not") + " stored, but newFrom is " + newFrom);
            }
        }
        for (StoredSession s : flush.sessions()) {
            sessions.put(s.state().id(), new Row(s.key(), s.state().id(), s.headPosition(),
                    SessionStateJson.view(s.state()), SessionStateJson.extra(s.state())));
            ids.put(s.key(), s.state().id());
        }
        for (StoredCall c : flush.calls()) {
            StoredCall other = call(c.sessionKey(), c.requestId());
            if (other != null && other.decision() != c.decision()) {
                throw new ProjectionConflictException("request " + c.requestId() + " of session " + c.sessionKey()
                        + " already has a decision at " + other.decision(), null);
            }
        }
        for (StoredClient c : flush.clients()) {
            clients.put(c.state().tokenRef(), new ClientRow(c.key(), c.headPosition(),
                    Canonical.jcsBytes(c.state().toJson())));
        }
        flush.calls().forEach(c -> calls.put(c.decision(), c));
        flush.pendingRemoved().forEach(c -> pending.remove(c.decision()));
        flush.pendingAdded().forEach(c -> pending.put(c.decision(), c));
        owners.putAll(flush.capabilityOwners());
        revoked.putAll(flush.revokedPrincipals());
        meta = flush.meta();
        flushes++;
    }

    /** A copy of what is stored, for a second projector that must not change this one's store. */
    synchronized MemoryProjectionStore copy() {
        MemoryProjectionStore copy = new MemoryProjectionStore();
        copy.meta = meta;
        copy.sessions.putAll(sessions);
        copy.ids.putAll(ids);
        copy.calls.putAll(calls);
        copy.pending.putAll(pending);
        copy.owners.putAll(owners);
        copy.revoked.putAll(revoked);
        copy.clients.putAll(clients);
        return copy;
    }

    @Override
    public synchronized void clear() {
        meta = Meta.EMPTY;
        sessions.clear();
        ids.clear();
        calls.clear();
        pending.clear();
        owners.clear();
        revoked.clear();
        clients.clear();
    }
}
