package io.mcpledger.query;

import static io.mcpledger.query.LedgerProjectionTest.IDLE;
import static io.mcpledger.query.LedgerProjectionTest.POLICY;
import static io.mcpledger.query.LedgerProjectionTest.T0;
import static io.mcpledger.query.LedgerProjectionTest.TOKEN;
import static io.mcpledger.query.LedgerProjectionTest.policy;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.ClientAnswer;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RecordClientOutcome;
import io.mcpledger.domain.session.RequestClientCall;
import io.mcpledger.domain.session.ResolveClientCall;
import io.mcpledger.domain.session.SettleEdgeCalls;
import io.mcpledger.domain.session.TokenRefs;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client streams (contract section 15) in the ledger's projections: their object C and calls as the aggregate left
 * them, their calls found by requestId and by pending status, stored and opened again by a restart, and a digest equal
 * to the one the verifier's fold computes from the log alone.
 */
class ClientStreamProjectionTest {
    private static final String OTHER_TOKEN = Sha256.hex("client-token-2".getBytes(StandardCharsets.UTF_8));
    private static final String A = "0".repeat(64);

    private final InMemoryLedger ledger = new InMemoryLedger(IDLE);

    @AfterEach
    void tearDown() {
        ledger.close();
    }

    private CallAnswer call(String token, String requestId, String tool, String incarnation) {
        return ledger.send(new RequestClientCall(token, requestId, "alice", "pricing", "2026-07-28", null,
                new Edge("edge-a", incarnation), "pricing", tool, "invoke", A, null, T0));
    }

    @Test
    void aClientStreamIsProjectedAsItsAggregateLeftIt() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        assertThat(call(TOKEN, "r-1", "quote", "i-1").admitted()).isTrue();
        assertThat(call(TOKEN, "r-2", "discount", "i-1").admitted()).isFalse();
        assertThat(call(TOKEN, "r-3", "quote", "i-1").admitted()).isTrue();
        ClientAnswer done = ledger.send(new RecordClientOutcome(TOKEN, "r-1", "ok", A, null, T0));

        String tokenRef = TokenRefs.of(TOKEN);
        assertThat(ledger.projector.clientView(tokenRef)).hasValueSatisfying(c -> {
            assertThat(c.path("principal").asText()).isEqualTo("alice");
            assertThat(c.path("seq").asLong()).isEqualTo(4);
            assertThat(c.path("head").asText()).isEqualTo(done.receipt().hash());
            assertThat(c.path("calls").toString())
                    .isEqualTo("{\"admitted\":2,\"refused\":1,\"completed\":1,\"unknown\":0,\"pending\":1}");
        });
        assertThat(ledger.projector.clientCall(tokenRef, "r-3").status().name()).isEqualTo("PENDING");
        assertThat(ledger.projector.clientPendingCalls(tokenRef)).extracting(c -> c.requestId()).containsExactly("r-3");
        assertThat(ledger.projector.clientView(TokenRefs.of(OTHER_TOKEN))).isEmpty();
        assertThat(ledger.projector.clientsWithRequest("r-2")).containsExactly(tokenRef);
        assertThat(ledger.projector.clientHeadPosition(tokenRef)).isEqualTo(ledger.log.size() - 1);
    }

    @Test
    void aNewIncarnationSettlesTheCallsTheOldOneLeftPending() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        call(TOKEN, "r-1", "quote", "i-1");
        call(OTHER_TOKEN, "r-1", "quote", "i-1");
        call(TOKEN, "r-2", "quote", "i-2");
        ledger.projector.flush();
        call(OTHER_TOKEN, "r-2", "quote", "i-1");
        assertThat(ledger.projector.clientsWithPendingCalls())
                .containsExactlyInAnyOrder(TokenRefs.of(TOKEN), TokenRefs.of(OTHER_TOKEN));

        List<Receipt> first = ledger.send(new SettleEdgeCalls(TokenRefs.of(TOKEN), "edge-a", "i-2", T0));
        List<Receipt> other = ledger.send(new SettleEdgeCalls(TokenRefs.of(OTHER_TOKEN), "edge-a", "i-2", T0));

        assertThat(first).extracting(Receipt::request).containsExactly("r-1");
        assertThat(other).extracting(Receipt::request).containsExactly("r-1", "r-2");
        assertThat(ledger.projector.clientsWithPendingCalls()).containsExactly(TokenRefs.of(TOKEN));
        ClientAnswer resolved = ledger.send(new ResolveClientCall(TokenRefs.of(TOKEN), "r-1", "not_run", "checked", T0));
        assertThat(resolved.client().path("calls").path("completed").asLong()).isEqualTo(1);
    }

    @Test
    void aRestartAndARebuildReachTheDigestTheVerifierComputesFromTheLog() {
        ledger.send(new ActivatePolicy(policy(POLICY), T0));
        ledger.send(new InitializeSession(LedgerProjectionTest.sessionId(1), TOKEN, "alice", "pricing", "2025-06-18",
                null, new Edge("edge-a", "1"), T0));
        call(TOKEN, "r-1", "quote", "i-1");
        ledger.projector.flush();
        call(TOKEN, "r-2", "quote", "i-1");
        call(OTHER_TOKEN, "r-1", "discount", "i-1");
        ledger.send(new SettleEdgeCalls(TokenRefs.of(TOKEN), "edge-a", "i-2", T0));

        MemoryLedgerState replayed = new MemoryLedgerState();
        ledger.log.receipts().forEach(r -> LedgerFold.apply(replayed, r));
        String expected = ProjectionDigest.of(replayed);

        assertThat(ledger.projector.digest().digest()).isEqualTo(expected);
        assertThat(ledger.restarted(false).digest().digest()).isEqualTo(expected);
        assertThat(ledger.rebuilt().digest().digest()).isEqualTo(expected);
        assertThat(ledger.restarted(false).clientView(TokenRefs.of(TOKEN)))
                .isEqualTo(ledger.projector.clientView(TokenRefs.of(TOKEN)));
    }
}
