package io.mcpledger.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.session.DeleteSession;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.ExpireSession;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RecordOutcome;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.ResolveCall;
import io.mcpledger.domain.session.ResumeSession;
import io.mcpledger.domain.session.RevokeCapability;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.TokenRefs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.axonframework.modelling.command.AggregateNotFoundException;

/**
 * Generated command scripts through the real command bus: after every answered command the aggregate's view of the
 * session equals the projection's, and folding the stored receipts again (into fresh projections, and in memory as the
 * verifier does) gives the live digest: the one fold is deterministic and shared. Flushes at random points show that
 * what is stored and what is in memory make the same projections.
 */
class FoldPropertiesTest {
    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final Duration IDLE = Duration.ofMinutes(30);
    private static final String[] TOKENS = {
        Sha256.hex("token-a".getBytes(StandardCharsets.UTF_8)), Sha256.hex("token-b".getBytes(StandardCharsets.UTF_8))};
    private static final String[] POLICIES = {LedgerProjectionTest.POLICY, LedgerProjectionTest.DISCOUNT_POLICY,
        "{\"capabilities\":{\"default\":{\"tools\":[{\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"*\",\"ttl\":60}]}}}"};
    private static final String[] TOOLS = {"quote", "discount", "refund"};
    private static final String[] INCARNATIONS = {"1", "2", null};

    /** One generated step: what to do, to which session and request, and how much time passes first. */
    record Step(int action, int session, int request, int choice, int minutes) {
    }

    @Provide
    Arbitrary<List<Step>> scripts() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.integers().between(0, 10), Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 2),
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(8, Arbitraries.just(0)),
                        net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1, 6)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(25, 40))))
                .as(Step::new);
        return step.list().ofMinSize(5).ofMaxSize(60);
    }

    @Property(tries = 60)
    void theAggregateAndTheProjectionReachTheSameState(@ForAll("scripts") List<Step> script) {
        try (InMemoryLedger ledger = new InMemoryLedger(IDLE)) {
            Instant now = T0;
            for (Step step : script) {
                now = now.plus(Duration.ofMinutes(step.minutes()));
                Object answer = run(ledger, step, now);
                if (answer instanceof SessionAnswer s && s.session() != null) {
                    String id = s.session().path("id").asText();
                    assertThat(ledger.projector.sessionView(id)).contains(s.session());
                }
                if (step.minutes() > 20) {
                    ledger.projector.flush();
                }
            }
            DigestView live = ledger.projector.digest();
            assertThat(ledger.rebuilt().digest()).isEqualTo(live);
            assertThat(foldStoredReceipts(ledger)).isEqualTo(live.digest());
            assertThat(foldStoredReceipts(ledger)).isEqualTo(live.digest());
        }
    }

    /** The digest of the stored receipts folded in memory, as the offline verifier folds a bundle. */
    private static String foldStoredReceipts(InMemoryLedger ledger) {
        MemoryLedgerState state = new MemoryLedgerState();
        ledger.log.receipts().forEach(r -> LedgerFold.apply(state, r));
        return ProjectionDigest.of(state);
    }

    private static String sessionId(int n) {
        byte[] random = new byte[16];
        random[0] = (byte) n;
        return SessionIds.issue(token(n), random);
    }

    private static String token(int session) {
        return TOKENS[session / 2];
    }

    private static Object run(InMemoryLedger ledger, Step s, Instant now) {
        String id = sessionId(s.session());
        String token = token(s.session());
        String request = "req-" + s.request();
        Edge edge = new Edge("edge-a", INCARNATIONS[s.choice()]);
        Object command = switch (s.action()) {
            case 0 -> new InitializeSession(id, token, "alice", "pricing", "2025-06-18", null, edge, now);
            case 1, 2 -> new RequestCall(id, token, request, "pricing", TOOLS[s.choice()], "invoke",
                    s.request() % 2 == 0 ? "ab".repeat(32) : "cd".repeat(32), null, now);
            case 3 -> new RecordOutcome(id, token, request, new String[] {"ok", "error", "unknown"}[s.choice()],
                    null, null, now);
            case 4 -> new ResumeSession(id, token, null, edge, now);
            case 5 -> new ResolveCall(id, request, new String[] {"ok", "error", "not_run"}[s.choice()], "checked", now);
            case 6 -> new DeleteSession(id, token, now);
            case 7 -> new RevokeCapability(id, null, now);
            case 8 -> new ActivatePolicy(LedgerProjectionTest.policy(POLICIES[s.choice()]), now);
            case 9 -> s.request() == 0 ? new RevokePrincipal(TokenRefs.of(token), now) : new ExpireSession(id, now);
            default -> new ExpireSession(id, now);
        };
        try {
            return ledger.send(command);
        } catch (LedgerException | AggregateNotFoundException expectedRefusal) {
            return expectedRefusal;
        } catch (IllegalStateException reusedSessionId) {
            return reusedSessionId;
        }
    }
}
