package io.mcpledger.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.policy.PolicyAnswer;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.receipt.Receipt;
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
import io.mcpledger.domain.session.TokenRefs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The projections through a real command bus: visible before the answer, never showing a refused command. */
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

        assertThat(ledger.projection.session(sessionId(1))).contains(answer.session());
    }

    @Test
    void aRefusedCommandLeavesTheProjectionsUnchanged() {
        initialize(1, T0);
        DigestView before = ledger.projection.digest();

        assertThatThrownBy(() -> ledger.send(new ResumeSession(sessionId(1), TOKEN, "1999-01-01", null, T0)))
                .isInstanceOf(LedgerException.class);

        assertThat(ledger.projection.digest()).isEqualTo(before);
    }

    @Test
    void theNextAdmissionSeesAnActivatedPolicy() {
        initialize(1, T0);
        ledger.send(new ActivatePolicy(POLICY, T0));
        ledger.send(new ResumeSession(sessionId(1), TOKEN, null, null, T0.plusSeconds(1)));

        CallAnswer answer = ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));

        assertThat(answer.admitted()).isTrue();
    }

    @Test
    void theNextAdmissionSeesANarrowedPolicy() {
        ledger.send(new ActivatePolicy(POLICY, T0));
        initialize(1, T0);
        ledger.send(new ActivatePolicy(DISCOUNT_POLICY, T0.plusSeconds(1)));

        CallAnswer answer = ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));

        assertThat(answer.refusal().code()).isEqualTo("not_in_scope");
    }

    @Test
    void theNextInitializeSeesARevokedPrincipal() {
        ledger.send(new RevokePrincipal(TokenRefs.of(TOKEN), T0));

        assertThat(ledger.projection.isPrincipalRevoked(TokenRefs.of(TOKEN))).isTrue();
        assertThatThrownBy(() -> initialize(1, T0.plusSeconds(1)))
                .isInstanceOfSatisfying(LedgerException.class, e -> assertThat(e.code().code()).isEqualTo("token_revoked"));
    }

    @Test
    void everyCapabilityASessionHeldLeadsBackToIt() {
        ledger.send(new ActivatePolicy(POLICY, T0));
        String first = initialize(1, T0).session().path("capability").path("id").asText();
        SessionAnswer resumed = ledger.send(new ResumeSession(sessionId(1), TOKEN, null, null, T0.plusSeconds(5)));
        String second = resumed.session().path("capability").path("id").asText();

        assertThat(first).isNotEqualTo(second);
        assertThat(ledger.projection.capabilityOwner(first)).contains(sessionId(1));
        assertThat(ledger.projection.capabilityOwner(second)).contains(sessionId(1));
        assertThat(ledger.projection.capabilityOwner("cap-none")).isEmpty();
    }

    @Test
    void listingPagesThroughActiveSessionsInIdOrder() {
        for (int n = 1; n <= 5; n++) {
            initialize(n, T0);
        }
        ledger.send(new DeleteSession(sessionId(2), TOKEN, T0.plusSeconds(1)));

        SessionPage first = ledger.projection.sessions(true, null, 2);
        SessionPage second = ledger.projection.sessions(true, first.next(), 2);

        assertThat(first.sessions()).extracting(s -> s.path("id").asText()).containsExactly(sessionId(1), sessionId(3));
        assertThat(first.next()).isEqualTo(sessionId(3));
        assertThat(second.sessions()).extracting(s -> s.path("id").asText()).containsExactly(sessionId(4), sessionId(5));
        assertThat(second.next()).isNull();
        assertThat(ledger.projection.sessions(false, null, 10).sessions()).hasSize(5);
        assertThat(ledger.projection.activeSessions()).isEqualTo(4);
    }

    @Test
    void theReaperListsOnlySessionsIdleBeyondTheExpiry() {
        initialize(1, T0);
        initialize(2, T0.plus(Duration.ofMinutes(10)));

        assertThat(ledger.projection.idleSessions(T0.plus(Duration.ofMinutes(31)))).containsExactly(sessionId(1));
        assertThat(ledger.projection.idleSessions(T0.plus(Duration.ofMinutes(30)))).isEmpty();
    }

    @Test
    void aProjectionRebuiltFromTheStoreHasTheSameDigest() {
        ledger.send(new ActivatePolicy(POLICY, T0));
        initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "r1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        ledger.send(new RevokeCapability(sessionId(1), null, T0.plusSeconds(2)));
        ledger.send(new RevokePrincipal(TokenRefs.of(Hex.encode(new byte[32])), T0.plusSeconds(3)));

        DigestView live = ledger.projection.digest();

        assertThat(live.treeSize()).isEqualTo(5);
        assertThat(ledger.projection.size()).isEqualTo(5);
        assertThat(ledger.rebuilt(IDLE).digest()).isEqualTo(live);
        assertThat(ledger.rebuilt(IDLE).session(sessionId(1))).isEqualTo(ledger.projection.session(sessionId(1)));
    }

    @Test
    void theActiveCountFollowsInitializeExpiryAndDelete() {
        initialize(1, T0);
        initialize(2, T0);
        initialize(3, T0);
        ledger.send(new DeleteSession(sessionId(1), TOKEN, T0.plusSeconds(1)));
        ledger.send(new ExpireSession(sessionId(2), T0.plus(IDLE).plusSeconds(1)));
        ledger.send(new DeleteSession(sessionId(2), TOKEN, T0.plus(IDLE).plusSeconds(2)));

        assertThat(ledger.projection.activeSessions()).isEqualTo(1);
    }

    @Test
    void everyCommittedReceiptIsLocatedInItsStreamAndAtItsLogIndex() {
        PolicyAnswer first = ledger.send(new ActivatePolicy(POLICY, T0));
        PolicyAnswer second = ledger.send(new ActivatePolicy(DISCOUNT_POLICY, T0));
        SessionAnswer initialized = initialize(1, T0);
        CallAnswer call = ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "discount", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(1)));
        Receipt revocation = ledger.send(new RevokePrincipal(TokenRefs.of(TOKEN), T0.plusSeconds(2)));

        assertThat(ledger.projection.locate(first.receipt().id())).contains(new ReceiptLocation("policy", 0, 0));
        assertThat(ledger.projection.locate(second.receipt().id())).contains(new ReceiptLocation("policy", 1, 1));
        assertThat(ledger.projection.locate(initialized.receipt().id())).contains(new ReceiptLocation(sessionId(1), 0, 2));
        assertThat(ledger.projection.locate(call.receipt().id())).contains(new ReceiptLocation(sessionId(1), 1, 3));
        assertThat(ledger.projection.locate(revocation.id())).contains(new ReceiptLocation(TokenRefs.of(TOKEN), 0, 4));
        assertThat(ledger.projection.locate("rcpt-never")).isEmpty();
    }

    @Test
    void aRequestIdIsFoundInEverySessionThatDecidedIt() {
        ledger.send(new ActivatePolicy(POLICY, T0));
        initialize(1, T0);
        initialize(2, T0);
        initialize(3, T0);
        for (int n : new int[] {3, 1}) {
            ledger.send(new RequestCall(sessionId(n), TOKEN, "req-1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                    T0.plusSeconds(1)));
        }

        assertThat(ledger.projection.sessionsWithRequest("req-1")).containsExactly(sessionId(1), sessionId(3));
        assertThat(ledger.projection.sessionsWithRequest("req-2")).isEmpty();
    }

    @Test
    void aReceiptTheFoldRefusesIsAProblemAndTheRestOfTheBatchIsStillFolded() {
        ledger.send(new ActivatePolicy(POLICY, T0));
        SessionAnswer first = initialize(1, T0);
        ledger.send(new RequestCall(sessionId(1), TOKEN, "req-1", "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1)));
        CallAnswer third = ledger.send(new RequestCall(sessionId(1), TOKEN, "req-2", "pricing", "quote", "invoke",
                "ab".repeat(32), null, T0.plusSeconds(2)));
        SessionAnswer other = initialize(2, T0);
        LedgerProjection projection = new LedgerProjection(IDLE);
        projection.replay(new SessionInitialized(sessionId(1), first.receipt()));

        projection.foldCommitted(List.of(new CallAdmitted(sessionId(1), third.receipt()),
                new SessionInitialized(sessionId(2), other.receipt())));

        assertThat(projection.problem()).contains("receipt " + third.receipt().id() + " could not be folded: session "
                + sessionId(1) + " expects seq 2 but found 3");
        assertThat(projection.session(sessionId(2))).isPresent();
        assertThat(projection.size()).isEqualTo(2);
    }

    @Test
    void projectionsThatFoldedEveryReceiptHaveNoProblem() {
        initialize(1, T0);

        assertThat(ledger.projection.problem()).isEmpty();
    }
}
