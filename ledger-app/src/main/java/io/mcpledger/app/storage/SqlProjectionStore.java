package io.mcpledger.app.storage;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionStateJson;
import io.mcpledger.query.ProjectionConflictException;
import io.mcpledger.query.ProjectionStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The projections in the ledger's database, beside the log. Tables, each keyed so that what a flush writes lands near
 * what the flush before wrote:
 * <ul>
 *   <li>{@code projection_meta}: one row, the log position the tables hold every receipt before, and where the active
 *       policy is;</li>
 *   <li>{@code session_state}: one row per session, keyed by the position of its {@code session.initialized}, with S
 *       (as the digest hashes it) and what the fold needs besides; unique by id, indexed by whether it is active. It
 *       is written when the session is new and when a field beside the activity changes (an initialize, a resume, a
 *       revocation, an end), so its S and its {@code head_position} may be older than the session's activity;</li>
 *   <li>{@code session_activity}: one row per session, under the same key, with what every call changes: the position
 *       of the session's latest receipt and the activity document ({@link SessionStateJson#activity}), whose fields
 *       stand over those of the row's S. A call's flush rewrites this row of about 200 bytes instead of the session's
 *       of over a kilobyte (docs/benchmarks.md, section 8);</li>
 *   <li>{@code call_state}: one row per call, keyed by the position of its decision, with its status and the positions
 *       of its latest outcome and its resolution; unique by (requestId, session);</li>
 *   <li>{@code client_state}: one row per client stream (contract section 15), keyed by the position of its first
 *       receipt, with C in JCS (as the digest hashes it); unique by tokenRef. Its calls are in {@code call_state} and
 *       {@code pending_call} under that key, as a session's are under its own;</li>
 *   <li>{@code pending_call}: the admitted calls without an outcome, keyed by decision, indexed by session;</li>
 *   <li>{@code capability_owner} and {@code revoked_principal}.</li>
 * </ul>
 * A flush is one transaction. It is not forced on its own: what it stores can be folded again from the log, and the
 * next forced commit of the log puts it on the disk too. A crash keeps the last flush a force covered, whose position
 * says where the next start folds from.
 */
public final class SqlProjectionStore implements ProjectionStore {
    private static final int PAGE = 1_000;
    /** Every table of the projections. */
    static final List<String> TABLES = List.of("projection_meta", "session_state", "session_activity",
            "client_state", "call_state", "pending_call", "capability_owner", "revoked_principal");
    /**
     * How many sessions' fields beside their activity this store remembers as it last wrote them ({@link #written}): a
     * session it does not remember gets its whole row written, which is always right.
     */
    static final int REMEMBERED_SESSIONS = 100_000;
    /** Stored codes of {@link CallStatus}: fixed, whatever the enum's order. */
    private static final Map<CallStatus, Integer> CODES = Map.of(CallStatus.REFUSED, 0, CallStatus.PENDING, 1,
            CallStatus.OK, 2, CallStatus.ERROR, 3, CallStatus.UNKNOWN, 4, CallStatus.RESOLVED, 5);
    private static final CallStatus[] STATUSES = new CallStatus[CODES.size()];

    static {
        CODES.forEach((status, code) -> STATUSES[code] = status);
    }

    /** A session's columns as {@link #session(ResultSet)} reads them, from {@link #SESSIONS}. */
    private static final String SESSION_COLUMNS = "s.session_key, s.id, a.head_position, s.view, s.extra, a.activity";
    private static final String SESSIONS = "session_state s JOIN session_activity a ON a.session_key = s.session_key";
    private static final String CALL_COLUMNS = "session_key, request_id, decision, status, outcome, resolution";

    private final DataSource database;
    private final ForcedWrites forcedWrites;
    /**
     * The fields beside the activity of each session row as the last committed flush wrote them: a session whose fields
     * are still these gets only its activity written. Only this store writes its tables (on PostgreSQL a node's slot
     * is its own while it runs), and {@link #clear} forgets them all.
     */
    private final Cache<Long, SessionStateJson.Fixed> written = Caffeine.newBuilder()
            .maximumSize(REMEMBERED_SESSIONS).executor(Runnable::run).build();

    public SqlProjectionStore(DataSource database, ForcedWrites forcedWrites) {
        this.database = database;
        this.forcedWrites = forcedWrites;
    }

    /** Creates the projections' tables when missing, in H2 or PostgreSQL. */
    public static void create(Connection c) throws SQLException {
        SqlDialect dialect = SqlDialect.of(c);
        String bytes = dialect.bytes();
        String text = dialect.text(256);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS projection_meta (id INT PRIMARY KEY, position BIGINT NOT NULL,"
                    + " policy_position BIGINT NOT NULL, policy_activations BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS session_state (session_key BIGINT PRIMARY KEY,"
                    + " id " + text + " NOT NULL, active BOOLEAN NOT NULL, head_position BIGINT NOT NULL,"
                    + " view " + bytes + " NOT NULL, extra " + bytes + " NOT NULL)");
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS session_state_id ON session_state (id)");
            // The client token a session was issued to, so an edge lists its own client's sessions by index. Stores
            // from before it get the column here, filled from each row's extra document.
            s.execute("ALTER TABLE session_state ADD COLUMN IF NOT EXISTS token_ref " + dialect.text(64));
            s.execute("CREATE INDEX IF NOT EXISTS session_state_token ON session_state (token_ref, id)");
            s.execute("CREATE INDEX IF NOT EXISTS session_state_active ON session_state (active)");
            s.execute("CREATE TABLE IF NOT EXISTS session_activity (session_key BIGINT PRIMARY KEY,"
                    + " head_position BIGINT NOT NULL, activity " + bytes + " NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS client_state (client_key BIGINT PRIMARY KEY,"
                    + " token_ref " + dialect.text(64) + " NOT NULL, head_position BIGINT NOT NULL,"
                    + " view " + bytes + " NOT NULL)");
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS client_state_token ON client_state (token_ref)");
            s.execute("CREATE TABLE IF NOT EXISTS call_state (decision BIGINT PRIMARY KEY,"
                    + " session_key BIGINT NOT NULL, request_id " + text + " NOT NULL, status "
                    + dialect.smallInteger() + " NOT NULL,"
                    + " outcome BIGINT NOT NULL, resolution BIGINT NOT NULL)");
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS call_state_request ON call_state (request_id, session_key)");
            s.execute("CREATE TABLE IF NOT EXISTS pending_call (decision BIGINT PRIMARY KEY,"
                    + " session_key BIGINT NOT NULL)");
            s.execute("CREATE INDEX IF NOT EXISTS pending_call_session ON pending_call (session_key)");
            s.execute("CREATE TABLE IF NOT EXISTS capability_owner (capability_id " + text + " PRIMARY KEY,"
                    + " session_id " + text + " NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS revoked_principal (token_ref " + dialect.text(64) + " PRIMARY KEY,"
                    + " position BIGINT NOT NULL)");
        }
        fillTokenRefs(c);
        fillActivities(c);
    }

    /** Gives every session row stored before the {@code token_ref} column its token, a thousand rows at a time. */
    private static void fillTokenRefs(Connection c) throws SQLException {
        fill(c, "SELECT session_key, extra FROM session_state WHERE token_ref IS NULL ORDER BY session_key LIMIT 1000",
                "UPDATE session_state SET token_ref = ? WHERE session_key = ?", (row, update) -> {
                    update.setString(1, SessionStateJson.tokenRef(row.getBytes(2)));
                    update.setLong(2, row.getLong(1));
                });
    }

    /**
     * Gives every session row stored before {@code session_activity} its activity row, read from the row's S and
     * position, a thousand rows at a time.
     */
    private static void fillActivities(Connection c) throws SQLException {
        fill(c, "SELECT s.session_key, s.head_position, s.view FROM session_state s WHERE NOT EXISTS (SELECT 1"
                + " FROM session_activity a WHERE a.session_key = s.session_key) ORDER BY s.session_key LIMIT 1000",
                "INSERT INTO session_activity (session_key, head_position, activity) VALUES (?, ?, ?)",
                (row, insert) -> {
                    insert.setLong(1, row.getLong(1));
                    insert.setLong(2, row.getLong(2));
                    insert.setBytes(3, SessionStateJson.activityOfView(row.getBytes(3)));
                });
    }

    /** Sets a statement's parameters from a row. */
    @FunctionalInterface
    private interface RowWrite {
        void set(ResultSet row, PreparedStatement write) throws SQLException;
    }

    /**
     * Runs {@code select}, a page of the rows still to fill, and {@code write} once for each of its rows in one batch,
     * until {@code select} finds none: each page's writes take its rows out of what it selects.
     */
    private static void fill(Connection c, String select, String write, RowWrite set) throws SQLException {
        try (PreparedStatement selecting = c.prepareStatement(select);
             PreparedStatement writing = c.prepareStatement(write)) {
            while (true) {
                int rows = 0;
                try (ResultSet r = selecting.executeQuery()) {
                    while (r.next()) {
                        set.set(r, writing);
                        writing.addBatch();
                        rows++;
                    }
                }
                if (rows == 0) {
                    return;
                }
                writing.executeBatch();
            }
        }
    }

    @Override
    public Meta meta() {
        return query("read the projections' position", SqlProjectionStore::meta);
    }

    /** The stored position and policy, in the transaction of {@code c}. */
    private static Meta meta(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT position, policy_position, policy_activations FROM projection_meta WHERE id = 1");
             ResultSet r = s.executeQuery()) {
            return r.next() ? new Meta(r.getLong(1), r.getLong(2), r.getLong(3)) : Meta.EMPTY;
        }
    }

    @Override
    public StoredSession session(String id) {
        return query("read session " + id, c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT " + SESSION_COLUMNS + " FROM " + SESSIONS + " WHERE s.id = ?")) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? session(r) : null;
                }
            }
        });
    }

    @Override
    public String sessionId(long key) {
        return query("read session " + key, c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT id FROM session_state WHERE session_key = ?")) {
                s.setLong(1, key);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? r.getString(1) : null;
                }
            }
        });
    }

    @Override
    public StoredClient client(String tokenRef) {
        return query("read client " + tokenRef, c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT client_key, view, head_position FROM client_state WHERE token_ref = ?")) {
                s.setString(1, tokenRef);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? new StoredClient(r.getLong(1), clientState(r.getBytes(2)), r.getLong(3)) : null;
                }
            }
        });
    }

    @Override
    public String clientTokenRef(long key) {
        return query("read client " + key, c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT token_ref FROM client_state WHERE client_key = ?")) {
                s.setLong(1, key);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? r.getString(1) : null;
                }
            }
        });
    }

    @Override
    public List<String> clientsWithPendingCalls() {
        return query("read the clients with pending calls", c -> {
            List<String> tokenRefs = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT DISTINCT k.token_ref FROM pending_call p"
                    + " JOIN client_state k ON k.client_key = p.session_key ORDER BY k.token_ref");
                 ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    tokenRefs.add(r.getString(1));
                }
            }
            return tokenRefs;
        });
    }

    /** Pages through the client streams by tokenRef, as {@link #forEachSessionView} does through the sessions. */
    @Override
    public void forEachClientView(Consumer<byte[]> consumer) {
        forEachView("client_state", "token_ref", consumer);
    }

    @Override
    public StoredCall call(long sessionKey, String requestId) {
        return query("read call " + requestId, c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT " + CALL_COLUMNS + " FROM call_state WHERE request_id = ? AND session_key = ?")) {
                s.setString(1, requestId);
                s.setLong(2, sessionKey);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? call(r) : null;
                }
            }
        });
    }

    /**
     * One statement for them all, answered from the index on {@code (request_id, session_key)}: on H2 a list of rows,
     * {@code (request_id, session_key) IN ((?, ?), ...)}, padded to a power of two with its last key so that a few
     * statements' texts serve every batch size (H2 keeps the last few it parsed, per connection); on PostgreSQL, which
     * plans such a list as one bitmap scan per row and plans it again for every size, the keys go in two arrays
     * through {@code unnest}, each looked up in the index: one statement for every size.
     */
    @Override
    public Map<CallKey, StoredCall> calls(Collection<CallKey> keys) {
        if (keys.size() < 2) {
            return ProjectionStore.super.calls(keys);
        }
        List<CallKey> list = new ArrayList<>(keys);
        return query("read " + keys.size() + " calls", c -> {
            SqlDialect dialect = SqlDialect.of(c);
            int size = dialect == SqlDialect.H2 ? Integer.highestOneBit(list.size() - 1) << 1 : list.size();
            while (list.size() < size) {
                list.add(list.get(list.size() - 1));
            }
            Map<CallKey, StoredCall> found = new HashMap<>();
            try (PreparedStatement s = c.prepareStatement(callsQuery(dialect, size))) {
                if (dialect == SqlDialect.H2) {
                    for (int i = 0; i < size; i++) {
                        s.setString(2 * i + 1, list.get(i).requestId());
                        s.setLong(2 * i + 2, list.get(i).sessionKey());
                    }
                } else {
                    s.setArray(1, c.createArrayOf("varchar", list.stream().map(CallKey::requestId).toArray()));
                    s.setArray(2, c.createArrayOf("bigint", list.stream().map(CallKey::sessionKey).toArray()));
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        StoredCall call = call(r);
                        found.put(new CallKey(call.sessionKey(), call.requestId()), call);
                    }
                }
            }
            return found;
        });
    }

    /** The query of {@link #calls} for {@code size} keys. */
    static String callsQuery(SqlDialect dialect, int size) {
        if (dialect == SqlDialect.H2) {
            return "SELECT " + CALL_COLUMNS + " FROM call_state WHERE (request_id, session_key) IN ("
                    + "(?, ?), ".repeat(size - 1) + "(?, ?))";
        }
        // Each key looked up on its own (LIMIT 1 keeps the subquery from being joined whole), so that the plan is
        // the index's whatever the table's statistics say: a join planned while the table was small reads it all.
        return "SELECT " + qualified("c", CALL_COLUMNS) + " FROM unnest(?::varchar[], ?::bigint[])"
                + " AS w (request_id, session_key) CROSS JOIN LATERAL (SELECT " + CALL_COLUMNS + " FROM call_state x"
                + " WHERE x.request_id = w.request_id AND x.session_key = w.session_key LIMIT 1) c";
    }

    @Override
    public List<StoredCall> pendingCalls(long sessionKey) {
        return query("read the pending calls of session " + sessionKey, c -> {
            List<StoredCall> calls = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT " + qualified("c", CALL_COLUMNS)
                    + " FROM pending_call p JOIN call_state c ON c.decision = p.decision"
                    + " WHERE p.session_key = ? ORDER BY p.decision")) {
                s.setLong(1, sessionKey);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        calls.add(call(r));
                    }
                }
            }
            return calls;
        });
    }

    @Override
    public List<Long> sessionsWithRequest(String requestId) {
        return query("look up request " + requestId, c -> {
            List<Long> keys = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT session_key FROM call_state WHERE request_id = ? ORDER BY session_key")) {
                s.setString(1, requestId);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        keys.add(r.getLong(1));
                    }
                }
            }
            return keys;
        });
    }

    @Override
    public String capabilityOwner(String capabilityId) {
        return query("look up capability " + capabilityId, c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT session_id FROM capability_owner WHERE capability_id = ?")) {
                s.setString(1, capabilityId);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? r.getString(1) : null;
                }
            }
        });
    }

    @Override
    public Map<String, Long> revokedPrincipals() {
        return query("read the revoked principals", c -> {
            Map<String, Long> revoked = new HashMap<>();
            try (PreparedStatement s = c.prepareStatement("SELECT token_ref, position FROM revoked_principal");
                 ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    revoked.put(r.getString(1), r.getLong(2));
                }
            }
            return revoked;
        });
    }

    @Override
    public List<StoredSession> activeSessions() {
        return query("read the active sessions", c -> {
            List<StoredSession> sessions = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT " + SESSION_COLUMNS + " FROM " + SESSIONS + " WHERE s.active = TRUE");
                 ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    sessions.add(session(r));
                }
            }
            return sessions;
        });
    }

    @Override
    public List<StoredSession> sessions(String after, int limit) {
        return page("list sessions", null, after, limit);
    }

    @Override
    public List<StoredSession> sessionsOf(String tokenRef, String after, int limit) {
        return page("list a client's sessions", tokenRef, after, limit);
    }

    /** Up to {@code limit} sessions by id after {@code after}; only {@code tokenRef}'s (by its index) when not null. */
    private List<StoredSession> page(String what, String tokenRef, String after, int limit) {
        return query(what, c -> {
            List<StoredSession> sessions = new ArrayList<>();
            List<String> where = new ArrayList<>();
            if (tokenRef != null) {
                where.add("s.token_ref = ?");
            }
            if (after != null) {
                where.add("s.id > ?");
            }
            try (PreparedStatement s = c.prepareStatement("SELECT " + SESSION_COLUMNS + " FROM " + SESSIONS
                    + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)) + " ORDER BY s.id LIMIT ?")) {
                int i = 1;
                if (tokenRef != null) {
                    s.setString(i++, tokenRef);
                }
                if (after != null) {
                    s.setString(i++, after);
                }
                s.setInt(i, limit);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        sessions.add(session(r));
                    }
                }
            }
            return sessions;
        });
    }

    /**
     * Pages through the sessions by id, a thousand at a time, so that no result holds them all; each one's S is written
     * again from its row and its activity.
     */
    @Override
    public void forEachSessionView(Consumer<byte[]> consumer) {
        String after = null;
        while (true) {
            List<StoredSession> sessions = page("read the sessions", null, after, PAGE);
            sessions.forEach(s -> consumer.accept(SessionStateJson.view(s.state())));
            if (sessions.size() < PAGE) {
                return;
            }
            after = sessions.get(sessions.size() - 1).state().id();
        }
    }

    /** Every row's view of {@code table} in {@code key} order, a thousand rows at a time. */
    private void forEachView(String table, String key, Consumer<byte[]> consumer) {
        String after = null;
        while (true) {
            String from = after;
            List<String> keys = new ArrayList<>();
            List<byte[]> views = query("read " + table, c -> {
                List<byte[]> page = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT " + key + ", view FROM " + table
                        + (from == null ? "" : " WHERE " + key + " > ?") + " ORDER BY " + key + " LIMIT " + PAGE)) {
                    if (from != null) {
                        s.setString(1, from);
                    }
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            keys.add(r.getString(1));
                            page.add(r.getBytes(2));
                        }
                    }
                }
                return page;
            });
            views.forEach(consumer);
            if (views.size() < PAGE) {
                return;
            }
            after = keys.get(keys.size() - 1);
        }
    }

    @Override
    public void write(Flush flush) {
        try (Connection c = database.getConnection()) {
            try {
                // Rows keyed at or after the position the store held are new: every receipt before it was folded and
                // stored by an earlier flush, and a row is keyed by the position of the receipt that made it.
                long newFrom = meta(c).position();
                Map<Long, SessionStateJson.Fixed> wrote = new HashMap<>();
                writeSessions(c, flush.sessions(), newFrom, wrote);
                writeClients(c, flush.clients(), newFrom);
                writeCalls(c, flush.calls(), newFrom);
                writePending(c, flush.pendingAdded(), flush.pendingRemoved());
                SqlDialect dialect = SqlDialect.of(c);
                writeStrings(c, dialect.upsert("capability_owner", 1, "capability_id", "session_id"),
                        new TreeMap<>(flush.capabilityOwners()));
                try (PreparedStatement s = c.prepareStatement(
                        dialect.upsert("revoked_principal", 1, "token_ref", "position"))) {
                    for (Map.Entry<String, Long> e : new TreeMap<>(flush.revokedPrincipals()).entrySet()) {
                        s.setString(1, e.getKey());
                        s.setLong(2, e.getValue());
                        s.addBatch();
                    }
                    s.executeBatch();
                }
                try (PreparedStatement s = c.prepareStatement(dialect.upsert("projection_meta", 1, "id", "position",
                        "policy_position", "policy_activations"))) {
                    s.setInt(1, 1);
                    s.setLong(2, flush.meta().position());
                    s.setLong(3, flush.meta().policyPosition());
                    s.setLong(4, flush.meta().policyActivations());
                    s.executeUpdate();
                }
                c.commit();
                written.putAll(wrote);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            if (isUniqueViolation(e)) {
                throw new ProjectionConflictException("a call has a second decision in the log (" + e.getMessage()
                        + ")", e);
            }
            throw new IllegalStateException("cannot store the projections at log position " + flush.meta().position()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Sessions keyed at or after {@code newFrom} are inserted, the others updated: a MERGE would look each one up by
     * its key first, and most of a catch-up's or rebuild's rows are new. An update leaves the id, and so its index,
     * alone, and writes the session's row only when a field beside the activity differs from what {@link #written}
     * says the row holds (or when that is not known): else the activity alone. What the rows now hold is put in
     * {@code wrote}, for {@link #written} once the flush is committed.
     */
    private void writeSessions(Connection c, List<StoredSession> sessions, long newFrom,
                               Map<Long, SessionStateJson.Fixed> wrote) throws SQLException {
        List<StoredSession> sorted = new ArrayList<>(sessions);
        sorted.sort(Comparator.comparingLong(StoredSession::key));
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO session_state (active, head_position, view,"
                + " extra, session_key, id, token_ref) VALUES (?, ?, ?, ?, ?, ?, ?)");
             PreparedStatement update = c.prepareStatement("UPDATE session_state SET active = ?, head_position = ?,"
                     + " view = ?, extra = ? WHERE session_key = ?");
             PreparedStatement insertActivity = c.prepareStatement("INSERT INTO session_activity (head_position,"
                     + " activity, session_key) VALUES (?, ?, ?)");
             PreparedStatement updateActivity = c.prepareStatement("UPDATE session_activity SET head_position = ?,"
                     + " activity = ? WHERE session_key = ?")) {
            List<StoredSession> updated = new ArrayList<>();
            List<StoredSession> active = new ArrayList<>();
            for (StoredSession session : sorted) {
                boolean isNew = session.key() >= newFrom;
                SessionStateJson.Fixed fixed = SessionStateJson.fixed(session.state());
                if (isNew || !fixed.equals(written.getIfPresent(session.key()))) {
                    PreparedStatement s = isNew ? insert : update;
                    s.setBoolean(1, session.state().active());
                    s.setLong(2, session.headPosition());
                    s.setBytes(3, SessionStateJson.view(session.state()));
                    s.setBytes(4, SessionStateJson.extra(session.state()));
                    s.setLong(5, session.key());
                    if (isNew) {
                        s.setString(6, session.state().id());
                        s.setString(7, session.state().tokenRef());
                    } else {
                        updated.add(session);
                    }
                    s.addBatch();
                    wrote.put(session.key(), fixed);
                }
                PreparedStatement a = isNew ? insertActivity : updateActivity;
                a.setLong(1, session.headPosition());
                a.setBytes(2, SessionStateJson.activity(session.state()));
                a.setLong(3, session.key());
                if (!isNew) {
                    active.add(session);
                }
                a.addBatch();
            }
            insert.executeBatch();
            insertActivity.executeBatch();
            requireUpdated(update.executeBatch(), updated, s -> "session " + s.state().id() + " (key " + s.key() + ")");
            requireUpdated(updateActivity.executeBatch(), active, s -> "activity of session " + s.state().id()
                    + " (key " + s.key() + ")");
        }
    }

    /** Client streams keyed at or after {@code newFrom} are inserted, the others updated (see {@link #writeSessions}). */
    private static void writeClients(Connection c, List<StoredClient> clients, long newFrom) throws SQLException {
        List<StoredClient> sorted = new ArrayList<>(clients);
        sorted.sort(Comparator.comparingLong(StoredClient::key));
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO client_state (head_position, view, client_key,"
                + " token_ref) VALUES (?, ?, ?, ?)");
             PreparedStatement update = c.prepareStatement("UPDATE client_state SET head_position = ?, view = ?"
                     + " WHERE client_key = ?")) {
            List<StoredClient> updated = new ArrayList<>();
            for (StoredClient client : sorted) {
                boolean isNew = client.key() >= newFrom;
                PreparedStatement s = isNew ? insert : update;
                s.setLong(1, client.headPosition());
                s.setBytes(2, Canonical.jcsBytes(client.state().toJson()));
                s.setLong(3, client.key());
                if (isNew) {
                    s.setString(4, client.state().tokenRef());
                } else {
                    updated.add(client);
                }
                s.addBatch();
            }
            insert.executeBatch();
            requireUpdated(update.executeBatch(), updated, k -> "client " + k.state().tokenRef() + " (key " + k.key()
                    + ")");
        }
    }

    /** Calls decided at or after {@code newFrom} are inserted, the others updated (see {@link #writeSessions}). */
    private static void writeCalls(Connection c, List<StoredCall> calls, long newFrom) throws SQLException {
        List<StoredCall> sorted = new ArrayList<>(calls);
        sorted.sort(Comparator.comparingLong(StoredCall::decision));
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO call_state (status, outcome, resolution,"
                + " decision, session_key, request_id) VALUES (?, ?, ?, ?, ?, ?)");
             PreparedStatement update = c.prepareStatement("UPDATE call_state SET status = ?, outcome = ?,"
                     + " resolution = ? WHERE decision = ?")) {
            List<StoredCall> updated = new ArrayList<>();
            for (StoredCall call : sorted) {
                boolean isNew = call.decision() >= newFrom;
                PreparedStatement s = isNew ? insert : update;
                s.setInt(1, CODES.get(call.status()));
                s.setLong(2, call.outcome());
                s.setLong(3, call.resolution());
                s.setLong(4, call.decision());
                if (isNew) {
                    s.setLong(5, call.sessionKey());
                    s.setString(6, call.requestId());
                } else {
                    updated.add(call);
                }
                s.addBatch();
            }
            insert.executeBatch();
            requireUpdated(update.executeBatch(), updated, call -> "call " + call.requestId() + " (decided at "
                    + call.decision() + ")");
        }
    }

    /** Every row an update names was stored by an earlier flush; one that is missing means the store lost it. */
    private static <T> void requireUpdated(int[] counts, List<T> rows, Function<T, String> name) {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 1) {
                throw new IllegalStateException("the store has no " + name.apply(rows.get(i))
                        + " although an earlier flush stored it");
            }
        }
    }

    private static void writePending(Connection c, List<StoredCall> added, List<StoredCall> removed)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM pending_call WHERE decision = ?")) {
            for (StoredCall call : removed) {
                s.setLong(1, call.decision());
                s.addBatch();
            }
            s.executeBatch();
        }
        List<StoredCall> sorted = new ArrayList<>(added);
        sorted.sort(Comparator.comparingLong(StoredCall::decision));
        // Added when decided, so never stored before: an insert.
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO pending_call (decision, session_key) VALUES (?, ?)")) {
            for (StoredCall call : sorted) {
                s.setLong(1, call.decision());
                s.setLong(2, call.sessionKey());
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    private static void writeStrings(Connection c, String sql, Map<String, String> rows) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (Map.Entry<String, String> row : rows.entrySet()) {
                s.setString(1, row.getKey());
                s.setString(2, row.getValue());
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    @Override
    public void clear() {
        written.invalidateAll();
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("TRUNCATE TABLE " + table);
            }
            c.commit();
            forcedWrites.force();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot clear the projections: " + e.getMessage(), e);
        }
    }

    /** SQL's unique violation, also where H2 reports it on the next exception of a batch. */
    private static boolean isUniqueViolation(SQLException failure) {
        for (SQLException e = failure; e != null; e = e.getNextException()) {
            if ("23505".equals(e.getSQLState())
                    || (e.getCause() instanceof SQLException cause && "23505".equals(cause.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    /** A session read with {@link #SESSION_COLUMNS}. */
    private static StoredSession session(ResultSet r) throws SQLException {
        return new StoredSession(r.getLong(1), SessionStateJson.read(r.getBytes(4), r.getBytes(5), r.getBytes(6)),
                r.getLong(3));
    }

    private static ClientState clientState(byte[] view) {
        try {
            return ClientState.fromJson(Canonical.parse(new String(view, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new IllegalStateException("a stored client stream is not JSON: " + e.getMessage(), e);
        }
    }

    private static StoredCall call(ResultSet r) throws SQLException {
        return new StoredCall(r.getLong(1), r.getString(2), r.getLong(3), STATUSES[r.getInt(4)], r.getLong(5),
                r.getLong(6));
    }

    private static String qualified(String table, String columns) {
        StringBuilder sb = new StringBuilder();
        for (String column : columns.split(", ")) {
            sb.append(sb.isEmpty() ? "" : ", ").append(table).append('.').append(column);
        }
        return sb.toString();
    }

    @FunctionalInterface
    private interface Query<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T query(String what, Query<T> query) {
        try (Connection c = Reads.connection(database)) {
            try {
                return query.run(c);
            } finally {
                Reads.end(c);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
        }
    }
}
