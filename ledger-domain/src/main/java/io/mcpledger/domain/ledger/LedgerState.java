package io.mcpledger.domain.ledger;

import io.mcpledger.domain.session.SessionState;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything the log says: sessions by id, revoked principals (tokenRefs), the active policy hash, and
 * which session each capability id was issued to. Changed only by {@link LedgerFold}; not thread-safe.
 */
public final class LedgerState {
    final NavigableMap<String, SessionState> sessions = new TreeMap<>();
    final NavigableSet<String> revokedPrincipals = new TreeSet<>();
    final Map<String, String> capabilityOwners = new HashMap<>();
    String policy;
    long size;
    long activeSessions;

    public NavigableMap<String, SessionState> sessions() {
        return Collections.unmodifiableNavigableMap(sessions);
    }

    public SessionState session(String id) {
        return sessions.get(id);
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

    /** How many sessions are active: kept by the fold so a session cap costs nothing to check. */
    public long activeSessions() {
        return activeSessions;
    }

    /** How many receipts were folded in. */
    public long size() {
        return size;
    }
}
