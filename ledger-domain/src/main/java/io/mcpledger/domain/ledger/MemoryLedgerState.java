package io.mcpledger.domain.ledger;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.CallRecords;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionState;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The whole {@link LedgerState} in memory: every session by id and every client stream by tokenRef, with every call's
 * receipts. For a log read whole (the
 * offline verifier, tests); not thread-safe.
 */
public final class MemoryLedgerState implements LedgerState {
    private final NavigableMap<String, SessionState> sessions = new TreeMap<>();
    private final Map<String, CallRecords> calls = new HashMap<>();
    private final NavigableMap<String, ClientState> clients = new TreeMap<>();
    private final Map<String, CallRecords> clientCalls = new HashMap<>();
    private final NavigableSet<String> revokedPrincipals = new TreeSet<>();
    private final Map<String, String> capabilityOwners = new HashMap<>();
    private String policy;
    private long size;
    private long activeSessions;

    @Override
    public SessionState session(String id) {
        return sessions.get(id);
    }

    @Override
    public CallRecords calls(String sessionId) {
        return calls.computeIfAbsent(sessionId, id -> new CallRecords());
    }

    @Override
    public void sessionFolded(SessionState after, boolean wasActive, Receipt r) {
        sessions.putIfAbsent(after.id(), after);
        if (wasActive != after.active()) {
            activeSessions += after.active() ? 1 : -1;
        }
        size++;
    }

    @Override
    public ClientState client(String tokenRef) {
        return clients.get(tokenRef);
    }

    @Override
    public CallRecords clientCalls(String tokenRef) {
        return clientCalls.computeIfAbsent(tokenRef, ref -> new CallRecords());
    }

    @Override
    public void clientFolded(ClientState after, Receipt r) {
        clients.putIfAbsent(after.tokenRef(), after);
        size++;
    }

    @Override
    public void capabilityIssued(String capabilityId, String sessionId) {
        capabilityOwners.putIfAbsent(capabilityId, sessionId);
    }

    @Override
    public boolean principalRevoked(String tokenRef, Receipt r) {
        boolean added = revokedPrincipals.add(tokenRef);
        if (added) {
            size++;
        }
        return added;
    }

    @Override
    public void policyActivated(String hash, Receipt r) {
        policy = hash;
        size++;
    }

    public NavigableMap<String, SessionState> sessions() {
        return Collections.unmodifiableNavigableMap(sessions);
    }

    /** Every client stream by tokenRef. */
    public NavigableMap<String, ClientState> clients() {
        return Collections.unmodifiableNavigableMap(clients);
    }

    public NavigableSet<String> revokedPrincipals() {
        return Collections.unmodifiableNavigableSet(revokedPrincipals);
    }

    /** The session a capability id was issued to, or null. */
    public String capabilityOwner(String capabilityId) {
        return capabilityOwners.get(capabilityId);
    }

    /** The active policy hash, or null while none was ever activated. */
    public String policy() {
        return policy;
    }

    /** How many sessions are active. */
    public long activeSessions() {
        return activeSessions;
    }

    /** How many receipts were folded in. */
    public long size() {
        return size;
    }
}
