package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestDatabases.Kind;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.CallRecords;
import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.domain.session.SessionFold;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStateJson;
import io.mcpledger.query.ProjectionConflictException;
import io.mcpledger.query.ProjectionStore.CallKey;
import io.mcpledger.query.ProjectionStore.Flush;
import io.mcpledger.query.ProjectionStore.Meta;
import io.mcpledger.query.ProjectionStore.StoredCall;
import io.mcpledger.query.ProjectionStore.StoredSession;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A flush inserts the calls decided at or after the position the store held before and updates the others; an update
 * of a row the store does not hold, or a second decision for a call, fails the whole flush. The same on H2 and on
 * PostgreSQL ({@link TestDatabases}).
 */
class SqlProjectionStoreTest {
    private static final long SESSION = 3;

    private final TestDatabases databases = new TestDatabases();
    private DataSource database;
    private SqlProjectionStore store;

    private void open(Kind kind) throws Exception {
        database = databases.create(kind, 2, SqlProjectionStore::create);
        store = new SqlProjectionStore(database, ForcedWrites.never());
    }

    @AfterEach
    void close() throws Exception {
        databases.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCallDecidedBeforeTheLastFlushIsUpdatedAndANewOneInserted(Kind kind) throws Exception {
        open(kind);
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));
        store.write(flush(20, new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1),
                new StoredCall(SESSION, "req-2", 15, CallStatus.REFUSED, -1, -1)));

        assertThat(store.call(SESSION, "req-1")).isEqualTo(new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1));
        assertThat(store.call(SESSION, "req-2")).isEqualTo(
                new StoredCall(SESSION, "req-2", 15, CallStatus.REFUSED, -1, -1));
        assertThat(store.meta().position()).isEqualTo(20);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anUpdateOfACallTheStoreDoesNotHoldFailsTheWholeFlush(Kind kind) throws Exception {
        open(kind);
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));

        assertThatThrownBy(() -> store.write(flush(20,
                new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1),
                new StoredCall(SESSION, "req-9", 7, CallStatus.OK, 13, -1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the store has no call req-9 (decided at 7)");

        assertThat(store.meta().position()).isEqualTo(10);
        assertThat(store.call(SESSION, "req-1").status()).isEqualTo(CallStatus.PENDING);
        assertThat(store.call(SESSION, "req-9")).isNull();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSecondDecisionForACallIsAConflictAndStoresNothing(Kind kind) throws Exception {
        open(kind);
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));

        assertThatThrownBy(() -> store.write(flush(20,
                new StoredCall(SESSION, "req-2", 11, CallStatus.PENDING, -1, -1),
                new StoredCall(SESSION, "req-1", 12, CallStatus.PENDING, -1, -1))))
                .isInstanceOf(ProjectionConflictException.class);

        assertThat(store.meta().position()).isEqualTo(10);
        assertThat(store.call(SESSION, "req-2")).isNull();
        assertThat(store.call(SESSION, "req-1").decision()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void ownersRevocationsAndThePositionAreWrittenOverAndRequestsFoundAcrossSessions(Kind kind) throws Exception {
        open(kind);
        store.write(new Flush(new Meta(10, 4, 1), List.of(),
                List.of(new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1),
                        new StoredCall(SESSION + 4, "req-1", 7, CallStatus.REFUSED, -1, -1)),
                List.of(), List.of(), Map.of("cap-1", "s-1"), Map.of("tr-1", 6L)));
        store.write(new Flush(new Meta(20, 12, 2), List.of(), List.of(), List.of(), List.of(),
                Map.of("cap-1", "s-2", "cap-2", "s-3"), Map.of("tr-2", 15L)));

        assertThat(store.meta()).isEqualTo(new Meta(20, 12, 2));
        assertThat(store.capabilityOwner("cap-1")).isEqualTo("s-2");
        assertThat(store.capabilityOwner("cap-2")).isEqualTo("s-3");
        assertThat(store.revokedPrincipals()).isEqualTo(Map.of("tr-1", 6L, "tr-2", 15L));
        assertThat(store.sessionsWithRequest("req-1")).containsExactly(SESSION, SESSION + 4);
        assertThat(store.sessionsWithRequest("req-2")).isEmpty();
    }

    /**
     * A batch's calls are read in one query: those the store holds, under their keys, whatever the number asked (the
     * list is padded to a power of two), with requestIds that other sessions use too; none for a key it lacks.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void callsAreReadInOneQueryByRequestAndSession(Kind kind) throws Exception {
        open(kind);
        List<StoredCall> stored = new ArrayList<>();
        for (int n = 0; n < 30; n++) {
            stored.add(new StoredCall(SESSION + n % 3, "req-" + n / 3, 100 + n, CallStatus.values()[n % 6], -1, -1));
        }
        store.write(flush(200, stored.toArray(StoredCall[]::new)));

        for (int size : new int[] {2, 3, 17, 64}) {
            List<CallKey> keys = new ArrayList<>();
            Map<CallKey, StoredCall> expected = new HashMap<>();
            for (int i = 0; i < size; i++) {
                // Every other key names a stored call; the others a requestId stored in other sessions, or none.
                StoredCall call = stored.get((i * 7) % stored.size());
                CallKey key = i % 2 == 0 ? new CallKey(call.sessionKey(), call.requestId())
                        : new CallKey(SESSION + 3 + i % 2, call.requestId() + (i % 4 == 1 ? "" : "-new"));
                keys.add(key);
                if (i % 2 == 0) {
                    expected.put(key, call);
                }
            }
            assertThat(store.calls(keys)).as("%d keys", size).isEqualTo(expected);
        }
        assertThat(store.calls(List.of(new CallKey(SESSION, "req-0")))).isEqualTo(
                Map.of(new CallKey(SESSION, "req-0"), stored.get(0)));
        assertThat(store.calls(List.of())).isEmpty();
    }

    /**
     * Both databases answer the batch's query from the index on (request_id, session_key), not by reading the table,
     * even while it is empty (PostgreSQL keeps a plan it chose then).
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aBatchsCallsAreReadThroughTheIndex(Kind kind) throws Exception {
        DataSource database = databases.create(kind, 1, SqlProjectionStore::create);
        SqlDialect dialect = kind == Kind.H2 ? SqlDialect.H2 : SqlDialect.POSTGRESQL;
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("EXPLAIN " + SqlProjectionStore.callsQuery(dialect, 4))) {
            if (dialect == SqlDialect.H2) {
                for (int i = 0; i < 4; i++) {
                    s.setString(2 * i + 1, "req-" + i);
                    s.setLong(2 * i + 2, i);
                }
            } else {
                s.setArray(1, c.createArrayOf("varchar", new String[] {"req-0", "req-1", "req-2", "req-3"}));
                s.setArray(2, c.createArrayOf("bigint", new Long[] {0L, 1L, 2L, 3L}));
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    plan.append(r.getString(1)).append('\n');
                }
            }
            assertThat(plan.toString()).containsIgnoringCase("call_state_request")
                    .doesNotContainIgnoringCase("tableScan").doesNotContainIgnoringCase("Seq Scan");
        }
    }

    /** Sessions are listed and digested in id order, which must be Java's order on every database. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void sessionsComeInJavasOrderOfTheirIds(Kind kind) throws Exception {
        open(kind);
        LargeLog receipts = new LargeLog("ledger.test/order", "0a1b2c3d", Instant.parse("2026-12-01T00:00:00Z"));
        List<StoredSession> sessions = new ArrayList<>();
        for (int n = 0; n < 12; n++) {
            sessions.add(new StoredSession(n, folded(receipts, n, 1), n));
        }
        store.write(new Flush(new Meta(12, -1, 0), sessions, List.of(), List.of(), List.of(), Map.of(), Map.of()));

        List<String> ids = new ArrayList<>();
        sessions.forEach(s -> ids.add(s.state().id()));
        ids.sort(null);
        List<String> listed = new ArrayList<>();
        store.sessions(null, 100).forEach(s -> listed.add(s.state().id()));
        assertThat(listed).isEqualTo(ids);
        assertThat(store.session(ids.get(3)).state().id()).isEqualTo(ids.get(3));
        List<byte[]> views = new ArrayList<>();
        store.forEachSessionView(views::add);
        assertThat(views).hasSize(12);
        assertThat(new String(views.get(0), java.nio.charset.StandardCharsets.UTF_8)).contains(ids.get(0));
    }

    /**
     * A flush whose session changed only by calls writes the session's activity, not its row; the session read,
     * listed and digested is still the S of its latest receipt. A change beside the activity (here a DELETE) writes the
     * row again.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSessionsCallsRewriteItsActivityAloneAndItIsReadBackWhole(Kind kind) throws Exception {
        final long key = 0; // the position of its session.initialized
        open(kind);
        List<Receipt> receipts = new LargeLog("ledger.test/activity", "0a1b2c3d", Instant.parse("2026-12-01T00:00:00Z"))
                .sessionReceipts(0, 5);
        CallRecords calls = new CallRecords();
        SessionState state = SessionFold.apply(null, receipts.get(0), calls);
        store.write(sessions(1, new StoredSession(key, state.copy(), 0)));
        byte[] rowView = storedView(key);
        assertThat(rowView).isEqualTo(SessionStateJson.view(state));

        for (int i = 1; i < receipts.size(); i++) {
            state = SessionFold.apply(state, receipts.get(i), calls);
        }
        assertThat(state.seq()).isEqualTo(5);
        store.write(sessions(5, new StoredSession(key, state.copy(), 4)));

        assertThat(storedView(key)).as("the session's row, not written again").isEqualTo(rowView);
        byte[] whole = SessionStateJson.view(state);
        StoredSession read = store.session(state.id());
        assertThat(SessionStateJson.view(read.state())).isEqualTo(whole);
        assertThat(read.headPosition()).isEqualTo(4);
        assertThat(SessionStateJson.view(store.sessions(null, 10).get(0).state())).isEqualTo(whole);
        assertThat(SessionStateJson.view(store.activeSessions().get(0).state())).isEqualTo(whole);
        List<byte[]> digested = new ArrayList<>();
        store.forEachSessionView(digested::add);
        assertThat(digested).containsExactly(whole);

        SessionState ended = withState(state, "deleted");
        store.write(sessions(6, new StoredSession(key, ended, 5)));
        assertThat(storedView(key)).isEqualTo(SessionStateJson.view(ended));
        assertThat(store.activeSessions()).isEmpty();
        assertThat(store.session(state.id()).state().active()).isFalse();
    }

    /**
     * A flush that fails writes nothing, and the store does not take what it would have written for what its rows
     * hold: the next flush of the session writes the row whole.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aFlushThatFailsLeavesTheNextOneToWriteTheSessionsRowWhole(Kind kind) throws Exception {
        open(kind);
        SessionState state = folded(new LargeLog("ledger.test/activity", "0a1b2c3d",
                Instant.parse("2026-12-01T00:00:00Z")), 0, 1);
        store.write(new Flush(new Meta(10, -1, 0), List.of(new StoredSession(SESSION, state.copy(), 0)),
                List.of(new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)), List.of(), List.of(),
                Map.of(), Map.of()));
        SessionState ended = withState(state, "deleted");

        assertThatThrownBy(() -> store.write(new Flush(new Meta(20, -1, 0),
                List.of(new StoredSession(SESSION, ended, 12)),
                List.of(new StoredCall(SESSION, "req-1", 12, CallStatus.PENDING, -1, -1)), List.of(), List.of(),
                Map.of(), Map.of()))).isInstanceOf(ProjectionConflictException.class);
        assertThat(store.session(state.id()).state().active()).isTrue();

        store.write(sessions(21, new StoredSession(SESSION, ended, 12)));
        assertThat(store.session(state.id()).state().active()).isFalse();
        assertThat(storedView(SESSION)).isEqualTo(SessionStateJson.view(ended));
    }

    /**
     * A store from before {@code session_activity} (version 2 of the layout) gets each session's activity from its row
     * when the ledger next opens it, and reads every session as it was.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void sessionsStoredBeforeTheActivityTableGetTheirActivityFromTheirRow(Kind kind) throws Exception {
        open(kind);
        LargeLog log = new LargeLog("ledger.test/activity", "0a1b2c3d", Instant.parse("2026-12-01T00:00:00Z"));
        List<StoredSession> sessions = new ArrayList<>();
        for (int n = 0; n < 1_200; n++) {
            sessions.add(new StoredSession(n, folded(log, n, 1 + n % 4), 10_000 + n));
        }
        store.write(new Flush(new Meta(20_000, -1, 0), sessions, List.of(), List.of(), List.of(), Map.of(), Map.of()));
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE session_activity");
            c.commit();
        }
        for (int start = 0; start < 2; start++) { // as every start of the ledger does; the second changes nothing
            try (Connection c = database.getConnection()) {
                SqlProjectionStore.create(c);
                c.commit();
            }
        }

        SqlProjectionStore reopened = new SqlProjectionStore(database, ForcedWrites.never());
        for (StoredSession expected : List.of(sessions.get(0), sessions.get(7), sessions.get(1_199))) {
            StoredSession read = reopened.session(expected.state().id());
            assertThat(SessionStateJson.view(read.state())).isEqualTo(SessionStateJson.view(expected.state()));
            assertThat(read.headPosition()).isEqualTo(expected.headPosition());
        }
        List<byte[]> digested = new ArrayList<>();
        reopened.forEachSessionView(digested::add);
        assertThat(digested).hasSize(1_200);
    }

    /** Session {@code n} of {@code log} after its first {@code receipts} receipts. */
    private static SessionState folded(LargeLog log, int n, int receipts) {
        CallRecords calls = new CallRecords();
        SessionState state = null;
        for (Receipt r : log.sessionReceipts(n, receipts)) {
            state = SessionFold.apply(state, r, calls);
        }
        return state;
    }

    private static Flush sessions(long position, StoredSession... sessions) {
        return new Flush(new Meta(position, -1, 0), List.of(sessions), List.of(), List.of(), List.of(), Map.of(),
                Map.of());
    }

    /** A copy of {@code state} in another state ({@code expired}, {@code deleted}), read back from its documents. */
    private static SessionState withState(SessionState state, String wire) {
        String view = new String(SessionStateJson.view(state), StandardCharsets.UTF_8);
        SessionState changed = SessionStateJson.read(view.replace("\"state\":\"active\"", "\"state\":\"" + wire + "\"")
                .getBytes(StandardCharsets.UTF_8), SessionStateJson.extra(state));
        assertThat(changed.status()).isNotEqualTo(state.status());
        return changed;
    }

    /** The S a session's row holds. */
    private byte[] storedView(long key) throws Exception {
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT view FROM session_state WHERE session_key = ?")) {
            s.setLong(1, key);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getBytes(1);
            }
        }
    }

    private static Flush flush(long position, StoredCall... calls) {
        return new Flush(new Meta(position, -1, 0), List.of(), List.of(calls), List.of(), List.of(), Map.of(),
                Map.of());
    }

    /**
     * A store from before the {@code token_ref} column (version 2 of the layout without it) gets the column, filled
     * from each row's extra document, when the ledger next opens it; an edge's listing then reads through its index.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void sessionsStoredBeforeTheTokenColumnGetTheirTokenAndAreListedByIt(Kind kind) throws Exception {
        String alice = "aa".repeat(32);
        String bob = "bb".repeat(32);
        DataSource database = databases.create(kind, 2);
        try (Connection c = database.getConnection()) {
            try (Statement s = c.createStatement()) {
                String bytes = SqlDialect.of(c).bytes();
                s.execute("CREATE TABLE session_state (session_key BIGINT PRIMARY KEY, id VARCHAR(256) NOT NULL,"
                        + " active BOOLEAN NOT NULL, head_position BIGINT NOT NULL, view " + bytes + " NOT NULL,"
                        + " extra " + bytes + " NOT NULL)");
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO session_state VALUES (?, ?, TRUE, ?, ?, ?)")) {
                for (int i = 1; i <= 1_500; i++) {
                    insert.setLong(1, i);
                    insert.setString(2, String.format("mcp-%04d", i));
                    insert.setLong(3, i);
                    insert.setBytes(4, "{}".getBytes(StandardCharsets.UTF_8));
                    insert.setBytes(5, ("{\"tokenRef\":\"" + (i % 3 == 0 ? alice : bob) + "\"}")
                            .getBytes(StandardCharsets.UTF_8));
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            c.commit();
        }
        for (int start = 0; start < 2; start++) { // as every start of the ledger does; the second changes nothing
            try (Connection c = database.getConnection()) {
                SqlProjectionStore.create(c);
                c.commit();
            }
        }

        try (Connection c = database.getConnection();
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*), COUNT(token_ref), SUM(CASE WHEN token_ref = '" + alice
                     + "' THEN 1 ELSE 0 END) FROM session_state")) {
            assertThat(r.next()).isTrue();
            assertThat(List.of(r.getLong(1), r.getLong(2), r.getLong(3))).containsExactly(1_500L, 1_500L, 500L);
        }
    }
}
