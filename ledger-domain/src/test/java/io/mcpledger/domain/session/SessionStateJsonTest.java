package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.SessionScript.ARGS;
import static io.mcpledger.domain.session.SessionScript.EDGE_2;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.ledger.SessionView;
import io.mcpledger.domain.receipt.Receipt;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** What the projections store of a session is all the fold needs to go on from where it stopped. */
class SessionStateJsonTest {
    private static final Duration IDLE = Duration.ofMinutes(30);

    private static SessionState stored(SessionState state) {
        return SessionStateJson.read(SessionStateJson.view(state), SessionStateJson.extra(state));
    }

    @Test
    void aStoredStateReadsBackAsTheSameSession() {
        List<Receipt> receipts = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2)
                .call("req-2", "quote", ARGS, 3).resume(EDGE_2, 4).receipts();
        SessionState state = null;
        CallRecords calls = new CallRecords();
        for (Receipt r : receipts) {
            state = SessionFold.apply(state, r, calls);
        }

        SessionState read = stored(state);

        assertThat(SessionView.toJson(read, IDLE)).isEqualTo(SessionView.toJson(state, IDLE));
        assertThat(read.tokenRef()).isEqualTo(state.tokenRef());
        assertThat(read.policy()).isEqualTo(state.policy());
        assertThat(read.edge()).isEqualTo(EDGE_2);
        assertThat(read.incarnation()).isEqualTo("2");
    }

    @Test
    void theFoldGoesOnFromAStoredStateAsFromTheOriginal() {
        List<Receipt> receipts = SessionScript.initialized().call("req-1", "quote", ARGS, 1)
                .call("req-2", "quote", ARGS, 2).outcome("req-1", "error", 3).receipts();
        SessionState original = null;
        CallRecords calls = new CallRecords();
        for (Receipt r : receipts.subList(0, 2)) {
            original = SessionFold.apply(original, r, calls);
        }
        SessionState resumed = stored(original);
        // The calls live apart from the state (in the store's call book); give the resumed fold its own copy of them.
        CallRecords resumedCalls = new CallRecords();
        SessionState callsOnly = null;
        for (Receipt r : receipts.subList(0, 2)) {
            callsOnly = SessionFold.apply(callsOnly, r, resumedCalls);
        }

        for (Receipt r : receipts.subList(2, receipts.size())) {
            original = SessionFold.apply(original, r, calls);
            resumed = SessionFold.apply(resumed, r, resumedCalls);
        }

        assertThat(SessionView.toJson(resumed, null)).isEqualTo(SessionView.toJson(original, null));
        assertThat(resumed.head()).isEqualTo(receipts.get(receipts.size() - 1).hash());
    }

    /**
     * The store writes a session's row once and then its activity alone while the fields beside it stay equal: the
     * row's older S with the newer activity reads back as the newer state, and the activity read from an S is the one
     * written from its state.
     */
    @Test
    void anOlderViewWithANewerActivityReadsBackAsTheNewerStateWhileTheFixedFieldsAreEqual() {
        List<Receipt> receipts = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2)
                .call("req-2", "quote", ARGS, 3).resume(EDGE_2, 4).call("req-3", "quote", ARGS, 5).receipts();
        CallRecords calls = new CallRecords();
        SessionState state = SessionFold.apply(null, receipts.get(0), calls);
        byte[] rowView = SessionStateJson.view(state);
        byte[] rowExtra = SessionStateJson.extra(state);
        SessionStateJson.Fixed rowFixed = SessionStateJson.fixed(state);
        assertThat(SessionStateJson.activityOfView(rowView)).isEqualTo(SessionStateJson.activity(state));

        for (Receipt r : receipts.subList(1, 4)) {
            state = SessionFold.apply(state, r, calls);
            assertThat(SessionStateJson.fixed(state)).as("after " + r.kind()).isEqualTo(rowFixed);
            SessionState read = SessionStateJson.read(rowView, rowExtra, SessionStateJson.activity(state));
            assertThat(SessionStateJson.view(read)).isEqualTo(SessionStateJson.view(state));
            assertThat(SessionStateJson.activityOfView(SessionStateJson.view(state)))
                    .isEqualTo(SessionStateJson.activity(state));
        }

        state = SessionFold.apply(state, receipts.get(4), calls);
        assertThat(SessionStateJson.fixed(state)).as("after a resume").isNotEqualTo(rowFixed);
        assertThat(SessionStateJson.fixed(state)).isEqualTo(SessionStateJson.fixed(stored(state)));
        state = SessionFold.apply(state, receipts.get(5), calls);
        SessionState read = SessionStateJson.read(SessionStateJson.view(stored(state)), SessionStateJson.extra(state),
                SessionStateJson.activity(state));
        assertThat(SessionView.toJson(read, IDLE)).isEqualTo(SessionView.toJson(state, IDLE));
    }

    /**
     * Every field of a session state is the id, a part of {@link SessionStateJson.Fixed} or a part of the activity: a
     * field added to the state and to neither would not be stored when only the activity is written.
     */
    @Test
    void everyFieldOfAStateIsTheIdAFixedFieldOrPartOfTheActivity() {
        Set<String> fixed = new TreeSet<>();
        for (RecordComponent c : SessionStateJson.Fixed.class.getRecordComponents()) {
            fixed.add(c.getName());
        }
        Set<String> activity = Set.of("lastActivityAt", "seq", "head", "admitted", "refused", "completed", "unknown",
                "pending");
        Set<String> fields = new TreeSet<>();
        for (Class<?> type = SessionState.class; type != Object.class; type = type.getSuperclass()) {
            for (Field f : type.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                    fields.add(f.getName());
                }
            }
        }
        Set<String> covered = new TreeSet<>(fixed);
        covered.addAll(activity);
        covered.add("id");
        assertThat(fields).isEqualTo(covered);
        assertThat(fixed).doesNotContainAnyElementsOf(activity);
        SessionState initialized = SessionFold.apply(null, SessionScript.initialized().receipts().get(0),
                new CallRecords());
        assertThat(new String(SessionStateJson.activity(initialized), StandardCharsets.UTF_8)).startsWith(
                "{\"calls\":{\"admitted\":0,\"completed\":0,\"pending\":0,\"refused\":0,\"unknown\":0},\"head\":");
    }

    @Test
    void aRevokedCapabilityKeepsItsRevocationReceiptsId() {
        SessionState state = null;
        CallRecords calls = new CallRecords();
        TestLedger.SettableAuthority authority = new TestLedger.SettableAuthority();
        authority.policy = TestLedger.QUOTE_AND_DISCOUNT;
        org.axonframework.test.aggregate.FixtureConfiguration<SessionAggregate> fixture =
                new org.axonframework.test.aggregate.AggregateTestFixture<>(SessionAggregate.class);
        fixture.registerInjectableResource(TestLedger.context(authority));
        fixture.givenCommands(TestLedger.initialize(),
                new RevokeCapability(TestLedger.SESSION, null, TestLedger.at(Duration.ofMinutes(1))));
        for (var event : fixture.getEventStore().readEvents(TestLedger.SESSION).asStream().toList()) {
            state = SessionFold.apply(state, ((SessionEvent) event.getPayload()).receipt(), calls);
        }

        SessionState read = stored(state);

        assertThat(read.capabilityRevoked()).isTrue();
        assertThat(read.capabilityRevocationId()).isEqualTo(state.capabilityRevocationId()).isNotNull();
    }
}
