package io.mcpledger.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.session.CallAdmitted;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.DeleteSession;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.ExpireSession;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.ResumeSession;
import io.mcpledger.domain.session.RevokeCapability;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.SessionInitialized;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.CallRecord;
import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.domain.session.RecordOutcome;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.session.TokenRefs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The projections through a real command bus: visible before the answer, never showing a refused command, stored with
 * the position they reach, and opened again by a restart that folds only what lies after it.
 */
class LedgerProjectionTest {
    static final String POLICY = "{\"capabilities\":{\"default\":{\"tools\":[{\"operations\":[\"invoke\"],"
            + "\"server\":\"pricing\",\"tool\":\"quote\",\"ttl\":300}]}}}";
    static final String DISCOUNT_POLICY = POLICY.replace("quote", "discount");
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    static final Duration IDLE = Duration.ofMinutes(30);
    static final String TOKEN = Sha256.hex("client-token-1".getBytes(StandardCharsets.UTF_8));

    private final InMemoryLedger ledger = new InMemoryLedger(IDLE);

    @AfterEach
    void tearDown() {
        ledger.close();
    }

    static PolicyDocument policy(String json) {
        try {
            return PolicyDocument.fromCanonical(json);
        } catch (InvalidPolicyException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static String sessionId(int n) {
        byte[] random = new byte[16];
        random[15] = (byte) n;
        return SessionIds.issue(TOKEN, random);
    }

    private SessionAnswer initialize(int n, Instant at) {
        return ledger.send(new InitializeSession(sessionId(n), TOKEN, "alice", "pricing", "2025-06-18", null,
                new Edge("edge-a", "1"), at));
    }

    @Test
    void anInitializedSessionIsVisibleAsSoonAsItIsAnswered() {
        SessionAnswer answer = initialize(1, T0);

        assertThat(ledger.projector.sessionView(sessionId(1))).contains(answer.session());
    }

    @Test
    void aRefusedCommandLeavesTheProjectionsUnchanged() {
        initialize(1, T0);
        DigestView before = ledger.projector.digest();

        assertThatThrownBy(() -> ledger.send(new ResumeSession(sessionId(1), TOKEN, "1999-01-01", null, T0)))
                .isInstanceOf(LedgerException.class);

        assertThat(ledger.projector.digest()).isEqualTo(before);
    }

    @Test
    void theNextAdmissionSeesAnActivatedPolicy() {
        initialize(1, T0);
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        ledger.send(new ResumeSession(sessionId(1), TOKEN, null, null, T0.plusSeconds(1)));

        CallAnswer answer = ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));

        assertThat(answer.admitted()).isTrue();
    }

    @Test
    void theNextAdmissionSeesANarrowedPolicy() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        ledger.send(new ActivatePolicy(policy(DISCOUNT_POLICY), T0.plusSeconds(1)));

        CallAnswer answer = ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));

        assertThat(answer.refusal().code()).isEqualTo("not_in_scope");
    }

    @Test
    void theNextInitializeSeesARevokedPrincipal() {
        ledger.send(new RevokePrincipal(TokenRefs.of(TOKEN), T0));

        assertThat(ledger.projector.isPrincipalRevoked(TokenRefs.of(TOKEN))).isTrue();
        assertThatThrownBy(() -> initialize(1, T0.plusSeconds(1)))
                .isInstanceOfSatisfying(LedgerException.class, e -> assertThat(e.code().code()).isEqualTo("token_revoked"));
    }

    @Test
    void everyCapabilityASessionHeldLeadsBackToIt() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        String first = initialize(1, T0).session().path("capability").path("id").asText();
        SessionAnswer resumed = ledger.send(new ResumeSession(sessionId(1), TOKEN, null, null, T0.plusSeconds(5)));
        String second = resumed.session().path("capability").path("id").asText();

        assertThat(first).isNotEqualTo(second);
        assertThat(ledger.projector.capabilityOwner(first)).isEqualTo(sessionId(1));
        assertThat(ledger.projector.capabilityOwner(second)).isEqualTo(sessionId(1));
        ledger.projector.flush();
        assertThat(ledger.projector.capabilityOwner(first)).isEqualTo(sessionId(1));
        assertThat(ledger.projector.capabilityOwner("cap-none")).isNull();
    }

    @Test
    void listingPagesThroughActiveSessionsInIdOrder() {
        for (int n = 1; n <= 5; n++) {
            initialize(n, T0);
        }
        ledger.send(new DeleteSession(sessionId(2), TOKEN, T0.plusSeconds(1)));

        SessionPage first = ledger.projector.sessions(true, null, 2);
        SessionPage second = ledger.projector.sessions(true, first.next(), 2);

        assertThat(first.sessions()).extracting(s -> s.path("id").asText()).containsExactly(sessionId(1), sessionId(3));
        assertThat(first.next()).isEqualTo(sessionId(3));
        assertThat(second.sessions()).extracting(s -> s.path("id").asText()).containsExactly(sessionId(4), sessionId(5));
        assertThat(second.next()).isNull();
        assertThat(ledger.projector.sessions(false, null, 10).sessions()).hasSize(5);
        assertThat(ledger.projector.activeSessions()).isEqualTo(4);
    }

    @Test
    void theReaperListsOnlySessionsIdleBeyondTheExpiry() {
        initialize(1, T0);
        initialize(2, T0.plus(Duration.ofMinutes(10)));

        assertThat(ledger.projector.idleSessions(T0.plus(Duration.ofMinutes(31)))).containsExactly(sessionId(1));
        assertThat(ledger.projector.idleSessions(T0.plus(Duration.ofMinutes(30)))).isEmpty();
    }

    @Test
    void projectionsFoldedAgainFromTheWholeLogHaveTheSameDigest() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        ledger.send(new RevokeCapability(sessionId(1), null, T0.plusSeconds(2)));
        ledger.send(new RevokePrincipal(TokenRefs.of(Hex.encode(new byte[32])), T0.plusSeconds(3)));

        DigestView live = ledger.projector.digest();

        assertThat(live.treeSize()).isEqualTo(5);
        assertThat(ledger.projector.position()).isEqualTo(5);
        assertThat(ledger.rebuilt().digest()).isEqualTo(live);
        assertThat(ledger.rebuilt().sessionView(sessionId(1))).isEqualTo(ledger.projector.sessionView(sessionId(1)));
    }

    @Test
    void theActiveCountFollowsInitializeExpiryAndDelete() {
        initialize(1, T0);
        initialize(2, T0);
        initialize(3, T0);
        ledger.send(new DeleteSession(sessionId(1), TOKEN, T0.plusSeconds(1)));
        ledger.send(new ExpireSession(sessionId(2), T0.plus(IDLE).plusSeconds(1)));
        ledger.send(new DeleteSession(sessionId(2), TOKEN, T0.plus(IDLE).plusSeconds(2)));

        assertThat(ledger.projector.activeSessions()).isEqualTo(1);
    }

    @Test
    void everyStreamsLatestReceiptIsKnownByItsLogPosition() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        ledger.send(new ActivatePolicy(policy(DISCOUNT_POLICY), T0));
        initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "discount", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        ledger.send(new RevokePrincipal(TokenRefs.of(TOKEN), T0.plusSeconds(2)));

        assertThat(ledger.projector.position()).isEqualTo(5);
        assertThat(ledger.projector.policyPosition()).isEqualTo(1);
        assertThat(ledger.projector.policyActivations()).isEqualTo(2);
        assertThat(ledger.projector.headPosition(sessionId(1))).isEqualTo(3);
        assertThat(ledger.projector.principalRevocationPosition(TokenRefs.of(TOKEN))).isEqualTo(4);
        assertThat(ledger.projector.headPosition(sessionId(2))).isEqualTo(-1);
    }

    @Test
    void aRequestIdIsFoundInEverySessionThatDecidedIt() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        initialize(2, T0);
        initialize(3, T0);
        for (int n : new int[] {3, 1}) {
            ledger.send(new RequestCall(sessionId(n), TOKEN, "req-1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                    T0.plusSeconds(1)));
        }

        assertThat(ledger.projector.sessionsWithRequest("req-1")).containsExactly(sessionId(1), sessionId(3));
        assertThat(ledger.projector.sessionsWithRequest("req-2")).isEmpty();
    }

    @Test
    void aReceiptTheFoldRefusesStopsTheProjectionsForGood() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        SessionAnswer first = initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        CallAnswer third = ledger.send(new RequestCall(sessionId(1), TOKEN, "req-2", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));
        SessionAnswer other = initialize(2, T0);
        MemoryProjectionStore store = new MemoryProjectionStore();
        LedgerProjector projector = LedgerProjector.open(store, ledger.log, IDLE, LedgerProjector.Caches.DEFAULT);
        projector.foldCommitted(0, List.of(new SessionInitialized(sessionId(1), first.receipt())));
        projector.flush();

        assertThatThrownBy(() -> projector.foldCommitted(1, List.of(new CallAdmitted(sessionId(1), third.receipt()),
                new SessionInitialized(sessionId(2), other.receipt()))))
                .isInstanceOf(IllegalStateException.class);

        assertThat(projector.problem()).contains("receipt " + third.receipt().id() + " at log position 1 cannot be"
                + " folded: session " + sessionId(1) + " expects seq 2 but found 3");
        assertThat(projector.sessionView(sessionId(2))).isEmpty();
        assertThat(projector.position()).isEqualTo(1);
        assertThatThrownBy(() -> projector.foldCommitted(1, List.of(new SessionInitialized(sessionId(2),
                other.receipt())))).isInstanceOf(IllegalStateException.class);
        projector.flush();
        assertThat(store.flushes).isEqualTo(1);
    }

    @Test
    void aSecondAdmissionOfACallNoLongerInMemoryStopsTheProjectionsAtTheFlush() throws Exception {
        ReceiptSigner signer = new ReceiptSigner(InMemoryLedger.KEY, "ledger.example/test");
        SessionAnswer initialized = initialize(1, T0);
        Receipt first = initialized.receipt();
        Receipt admitted = signer.sign(new ReceiptDraft("rcpt-a", ReceiptKind.CALL_ADMITTED, T0, sessionId(1), 2,
                first.hash(), "req-1", callBody()));
        Receipt again = signer.sign(new ReceiptDraft("rcpt-b", ReceiptKind.CALL_ADMITTED, T0, sessionId(1), 3,
                admitted.hash(), "req-1", callBody()));
        MemoryProjectionStore store = new MemoryProjectionStore();
        LedgerProjector projector = LedgerProjector.open(store, ledger.log, IDLE, new LedgerProjector.Caches(10, 0));
        projector.foldCommitted(0, List.of(new SessionInitialized(sessionId(1), first),
                new CallAdmitted(sessionId(1), admitted)));
        projector.flush();

        projector.foldCommitted(2, List.of(new CallAdmitted(sessionId(1), again)));

        assertThatThrownBy(projector::flush).isInstanceOf(ProjectionConflictException.class);
        assertThat(projector.problem()).hasValueSatisfying(p -> assertThat(p)
                .startsWith("the projections could not be stored at log position 3"));
        assertThat(store.meta().position()).isEqualTo(2);
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode callBody() {
        com.fasterxml.jackson.databind.node.ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("server", "pricing");
        body.put("tool", "quote");
        body.put("operation", "invoke");
        body.put("argumentsSha256", "ab".repeat(32));
        return body;
    }

    @Test
    void aBatchThatDoesNotContinueTheFoldedPositionsStopsTheProjections() {
        SessionAnswer first = initialize(1, T0);
        LedgerProjector projector = LedgerProjector.open(new MemoryProjectionStore(), ledger.log, IDLE,
                LedgerProjector.Caches.DEFAULT);

        assertThatThrownBy(() -> projector.foldCommitted(1, List.of(new SessionInitialized(sessionId(1),
                first.receipt())))).isInstanceOf(IllegalStateException.class);

        assertThat(projector.problem()).contains("a batch was appended at position 1 but the projections hold 0"
                + " entries");
    }

    @Test
    void aRestartFoldsOnlyTheLogEntriesAfterTheLastFlush() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        ledger.projector.flush();
        ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        initialize(2, T0.plusSeconds(2));

        LedgerProjector restarted = LedgerProjector.open(ledger.store.copy(), ledger.log, IDLE,
                LedgerProjector.Caches.DEFAULT);
        long folded = restarted.catchUp(n -> { });

        assertThat(folded).isEqualTo(2);
        assertThat(restarted.digest()).isEqualTo(ledger.projector.digest());
        assertThat(restarted.sessionView(sessionId(1))).isEqualTo(ledger.projector.sessionView(sessionId(1)));
        assertThat(restarted.activePolicy()).isEqualTo(ledger.projector.activePolicy());
        assertThat(restarted.activeSessions()).isEqualTo(2);
    }

    @Test
    void aFlushStoresEveryChangeAndLeavesNothingUnflushed() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        assertThat(ledger.projector.unflushed()).isPositive();

        ledger.projector.flush();

        assertThat(ledger.projector.unflushed()).isZero();
        assertThat(ledger.store.meta().position()).isEqualTo(2);
        assertThat(ledger.restarted(false).digest()).isEqualTo(ledger.projector.digest());
    }

    @Test
    void aCallIsReadBackWithItsReceiptsBeforeAndAfterAFlush() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        CallAnswer admitted = ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(1)));
        SessionAnswer outcome = ledger.send(new RecordOutcome(sessionId(1), TOKEN, "req-1", "ok", null, null,
                T0.plusSeconds(2)));

        for (int flushed = 0; flushed < 2; flushed++) {
            CallRecord call = ledger.projector.call(sessionId(1), "req-1");
            assertThat(call.decision()).isEqualTo(admitted.receipt());
            assertThat(call.status()).isEqualTo(CallStatus.OK);
            assertThat(call.outcomeReceipt()).isEqualTo(outcome.receipt());
            assertThat(ledger.projector.call(sessionId(1), "req-2")).isNull();
            ledger.projector.flush();
        }
    }

    /** Projections opened on what the ledger stored, which keep no call in memory: every call read is the store's. */
    private LedgerProjector openWithoutCalls(MemoryProjectionStore store) {
        return LedgerProjector.open(store, ledger.log, IDLE, new LedgerProjector.Caches(100, 0));
    }

    /** Session 1 initialized under the policy, its projections flushed: a copy of what the store then holds. */
    private MemoryProjectionStore oneSessionStored() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        ledger.projector.flush();
        return ledger.store.copy();
    }

    private static List<LedgerProjector.WantedCall> wanted(int session, String... requestIds) {
        return Arrays.stream(requestIds).map(r -> new LedgerProjector.WantedCall(sessionId(session), false, r))
                .toList();
    }

    private CallAnswer admit(int session, String requestId, int second) {
        return ledger.send(new RequestCall(sessionId(session), TOKEN, requestId, "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(second)));
    }

    @Test
    void aBatchsCallsAreReadAheadInOneQueryAndNotAskedForAgain() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        initialize(2, T0);
        CallAnswer admitted = admit(1, "req-0", 1);
        ledger.projector.flush();
        MemoryProjectionStore store = ledger.store.copy();
        LedgerProjector projector = openWithoutCalls(store);

        projector.readAhead(List.of(new LedgerProjector.WantedCall(sessionId(1), false, "req-0"),
                new LedgerProjector.WantedCall(sessionId(1), false, "req-1"),
                new LedgerProjector.WantedCall(sessionId(2), false, "req-0"),
                new LedgerProjector.WantedCall(sessionId(9), false, "req-0")));

        assertThat(store.batchReads).isEqualTo(1);
        assertThat(projector.call(sessionId(1), "req-0").decision()).isEqualTo(admitted.receipt());
        assertThat(projector.call(sessionId(1), "req-1")).isNull();
        assertThat(projector.call(sessionId(2), "req-0")).isNull();
        assertThat(store.callReads).isZero();
        // Another thread read nothing ahead: it asks the store.
        assertThat(CompletableFuture.supplyAsync(() -> projector.call(sessionId(1), "req-1")).join()).isNull();
        assertThat(store.callReads).isEqualTo(1);
    }

    @Test
    void aCallDecidedAfterItWasReadAheadIsAskedForAgain() {
        MemoryProjectionStore store = oneSessionStored();
        LedgerProjector projector = openWithoutCalls(store);
        projector.readAhead(wanted(1, "req-1", "req-2"));
        assertThat(store.batchReads).isEqualTo(1);

        // Decided after the read ahead found nothing, folded and stored: memory no longer holds it.
        CallAnswer admitted = admit(1, "req-1", 1);
        projector.catchUp(n -> { });
        projector.flush();
        int before = store.callReads;

        assertThat(projector.call(sessionId(1), "req-1").decision()).isEqualTo(admitted.receipt());
        assertThat(projector.call(sessionId(1), "req-2")).isNull();
        assertThat(store.callReads - before).isEqualTo(2);
    }

    @Test
    void theCallsOfSessionsMemoryDoesNotHoldAreNotReadAhead() {
        MemoryProjectionStore store = oneSessionStored();
        LedgerProjector projector = LedgerProjector.open(store, ledger.log, IDLE, new LedgerProjector.Caches(0, 0));

        projector.readAhead(wanted(1, "req-1", "req-2"));

        assertThat(store.batchReads).isZero();
        assertThat(projector.call(sessionId(1), "req-1")).isNull();
        assertThat(store.callReads).isEqualTo(1);
    }

    @Test
    void oneCallIsNotReadAheadNorOneMemoryHolds() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        admit(1, "req-0", 1);
        int before = ledger.store.callReads;

        ledger.projector.readAhead(wanted(1, "req-0", "req-1"));

        assertThat(ledger.store.batchReads).isZero();
        assertThat(ledger.projector.call(sessionId(1), "req-1")).isNull();
        assertThat(ledger.store.callReads - before).isEqualTo(1);
    }

    @Test
    void pendingCallsAreTheAdmittedOnesWithoutAnOutcomeInDecisionOrder() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        for (String request : List.of("r1", "r2", "r3")) {
            ledger.send(new RequestCall(sessionId(1), TOKEN, request, "pricing", "quote", "invoke", "ab".repeat(32),
                    null, T0.plusSeconds(1)));
        }
        ledger.projector.flush();
        ledger.send(new RecordOutcome(sessionId(1), TOKEN, "r2", "ok", null, null, T0.plusSeconds(2)));
        ledger.send(new RequestCall(sessionId(1), TOKEN, "r4", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(3)));

        assertThat(ledger.projector.pendingCalls(sessionId(1))).extracting(CallRecord::requestId)
                .containsExactly("r1", "r3", "r4");
        ledger.projector.flush();
        assertThat(ledger.projector.pendingCalls(sessionId(1))).extracting(CallRecord::requestId)
                .containsExactly("r1", "r3", "r4");
    }

    @Test
    void aResumeByAnotherIncarnationMarksCallsPendingSinceBeforeTheLastFlushUnknown() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        ledger.projector.flush();

        SessionAnswer resumed = ledger.send(new ResumeSession(sessionId(1), TOKEN, null, new Edge("edge-a", "2"),
                T0.plusSeconds(2)));

        assertThat(resumed.session().path("calls").path("unknown").asLong()).isEqualTo(1);
        assertThat(ledger.projector.call(sessionId(1), "r1").status()).isEqualTo(CallStatus.UNKNOWN);
    }

    @Test
    void projectionsThatFoldedEveryReceiptHaveNoProblem() {
        initialize(1, T0);

        assertThat(ledger.projector.problem()).isEmpty();
    }
}
