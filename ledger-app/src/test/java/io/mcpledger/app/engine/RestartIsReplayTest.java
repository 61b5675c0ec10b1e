package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.DeleteSession;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RecordOutcome;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.ResumeSession;
import io.mcpledger.domain.session.RevokeCapability;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.TokenRefs;
import io.mcpledger.query.DigestView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restart on the same H2 file comes back with the same digest, sessions and authority, folding nothing again. */
class RestartIsReplayTest {
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    static final String QUOTE_AND_DISCOUNT = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 300}
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;

    @TempDir
    Path dir;

    static LedgerSettings settings(Path dir, PolicyDocument policy) {
        return new LedgerSettings(dir, null, HostPort.parse("127.0.0.1:0"), policy, Duration.ofMinutes(30), 10_000,
                Duration.ofSeconds(1));
    }

    static LoadedState open(Path dir) throws Exception {
        StateDirectory state = new StateDirectory(dir);
        state.init(null);
        return state.load(null);
    }

    static String token(int n) {
        return Sha256.hex(("client-token-" + n).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRestartOnTheSameStateHasTheSameDigestAndSessions() throws Exception {
        PolicyDocument policy = PolicyFiles.parse(QUOTE_AND_DISCOUNT);
        LoadedState state = open(dir);
        List<String> sessions = new ArrayList<>();
        DigestView before;
        List<ObjectNode> viewsBefore = new ArrayList<>();
        try (LedgerEngine ledger = LedgerEngine.start(state, settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            for (int n = 0; n < 5; n++) {
                String id = SessionIds.issue(token(n), RandomIds.sessionRandom());
                sessions.add(id);
                ledger.commands().sendAndWait(new InitializeSession(id, token(n), "alice", "pricing", "2025-06-18", null,
                        new Edge("edge-a", "1"), T0));
                for (int c = 0; c < 3; c++) {
                    ledger.commands().sendAndWait(new RequestCall(id, token(n), "req-" + c, "pricing",
                            c == 2 ? "refund" : "quote", "invoke", "ab".repeat(32), null, T0.plusSeconds(c + 1)));
                }
                ledger.commands().sendAndWait(new RecordOutcome(id, token(n), "req-0", "ok", "11".repeat(32), null,
                        T0.plusSeconds(10)));
            }
            ledger.commands().sendAndWait(new ResumeSession(sessions.get(0), token(0), null, new Edge("edge-a", "2"),
                    T0.plusSeconds(20)));
            ledger.commands().sendAndWait(new RevokeCapability(sessions.get(1), null, T0.plusSeconds(21)));
            ledger.commands().sendAndWait(new DeleteSession(sessions.get(2), token(2), T0.plusSeconds(22)));
            ledger.commands().sendAndWait(new RevokePrincipal(TokenRefs.of(token(3)), T0.plusSeconds(23)));
            before = ledger.projector().digest();
            for (String id : sessions) {
                viewsBefore.add(ledger.projector().sessionView(id).orElseThrow());
            }
        }

        try (LedgerEngine restarted = LedgerEngine.start(open(dir), settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            assertThat(restarted.caughtUp()).as("a clean stop stores the projections: nothing to fold again").isZero();
            assertThat(restarted.projector().digest()).isEqualTo(before);
            for (int i = 0; i < sessions.size(); i++) {
                assertThat(restarted.projector().sessionView(sessions.get(i))).contains(viewsBefore.get(i));
            }
            assertThat(restarted.projector().isPrincipalRevoked(TokenRefs.of(token(3)))).isTrue();
            assertThat(restarted.projector().activePolicy()).contains(policy);
            assertThat(restarted.projector().position()).isEqualTo(before.treeSize());
        }
    }

    @Test
    void aRestartKeepsEnforcingRevocationsAndTombstones() throws Exception {
        PolicyDocument policy = PolicyFiles.parse(QUOTE_AND_DISCOUNT);
        String revoked = SessionIds.issue(token(1), RandomIds.sessionRandom());
        String deleted = SessionIds.issue(token(2), RandomIds.sessionRandom());
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            ledger.commands().sendAndWait(new InitializeSession(revoked, token(1), "alice", "pricing", "2025-06-18", null,
                    null, T0));
            ledger.commands().sendAndWait(new InitializeSession(deleted, token(2), "bob", "pricing", "2025-06-18", null,
                    null, T0));
            ledger.commands().sendAndWait(new RevokeCapability(revoked, null, T0.plusSeconds(1)));
            ledger.commands().sendAndWait(new DeleteSession(deleted, token(2), T0.plusSeconds(1)));
        }
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            SessionAnswer resumed = ledger.commands().sendAndWait(new ResumeSession(revoked, token(1), null, null,
                    T0.plusSeconds(2)));
            CallAnswer call = ledger.commands().sendAndWait(new RequestCall(revoked, token(1), "r", "pricing", "quote",
                    "invoke", "ab".repeat(32), null, T0.plusSeconds(3)));

            assertThat(resumed.session().path("capability").path("revoked").asBoolean()).isTrue();
            assertThat(call.refusal().code()).isEqualTo("capability_revoked");
            assertThatThrownBy(() -> ledger.commands().sendAndWait(new ResumeSession(deleted, token(2), null, null,
                    T0.plusSeconds(4))))
                    .isInstanceOfSatisfying(LedgerException.class, e -> assertThat(e.code().code()).isEqualTo("session_deleted"));
        }
    }

    @Test
    void startingWithTheActivePolicyAgainAppendsNothing() throws Exception {
        PolicyDocument policy = PolicyFiles.parse(QUOTE_AND_DISCOUNT);
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            assertThat(ledger.projector().digest().treeSize()).isEqualTo(1);
        }
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir, policy), Clock.fixed(T0, ZoneOffset.UTC))) {
            assertThat(ledger.projector().digest().treeSize()).isEqualTo(1);
        }
    }

    @Test
    void theReaperExpiresAnIdleSessionOnce() throws Exception {
        String id = SessionIds.issue(token(1), RandomIds.sessionRandom());
        Instant later = T0.plus(Duration.ofMinutes(31));
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir, null), Clock.fixed(later, ZoneOffset.UTC))) {
            ledger.commands().sendAndWait(new InitializeSession(id, token(1), "alice", "pricing", "2025-06-18", null,
                    null, T0));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!ledger.projector().sessionView(id).orElseThrow().path("state").asText().equals("expired")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(ledger.projector().sessionView(id).orElseThrow().path("state").asText()).isEqualTo("expired");
            Thread.sleep(1_200);
            assertThat(ledger.projector().sessionView(id).orElseThrow().path("seq").asLong()).isEqualTo(2);
        }
    }
}
