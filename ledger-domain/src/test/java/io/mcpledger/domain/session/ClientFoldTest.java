package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fold of a client stream (contract section 15): the chain, the principal of its first decision, and the calls
 * by the same rules as a session's; the ledger-wide fold keeps the streams beside the sessions, and the projection
 * digest gains {@code clients} only once there is one.
 */
class ClientFoldTest {
    private static final String ALICE = "aa".repeat(32);
    private static final String BOB = "bb".repeat(32);
    private static final ReceiptSigner SIGNER = new ReceiptSigner(SigningKey.fromSeed(new byte[32]), "ledger.test");

    /** Signs receipts of client streams, each chained to the stream's head. */
    private static final class Stream {
        private final List<Receipt> receipts = new ArrayList<>();
        private Instant at = Instant.parse("2026-12-03T10:00:00.000Z");

        Stream decide(String tokenRef, String request, boolean admitted, String principal) {
            ObjectNode body = Canonical.JSON.createObjectNode();
            body.put("principal", principal);
            body.put("tool", "quote");
            body.putObject("edge").put("id", "edge-1").put("incarnation", "boot-1");
            if (!admitted) {
                body.putObject("reason").put("code", "not_in_scope").put("message", "no");
            }
            return add(tokenRef, admitted ? ReceiptKind.CALL_ADMITTED : ReceiptKind.CALL_REFUSED, request, body);
        }

        Stream outcome(String tokenRef, String request, String status) {
            ObjectNode body = Canonical.JSON.createObjectNode();
            body.put("status", status);
            return add(tokenRef, ReceiptKind.CALL_OUTCOME, request, body);
        }

        Stream resolve(String tokenRef, String request, String status) {
            ObjectNode body = Canonical.JSON.createObjectNode();
            body.put("status", status);
            body.put("note", "checked");
            return add(tokenRef, ReceiptKind.CALL_RESOLVED, request, body);
        }

        Stream add(String tokenRef, ReceiptKind kind, String request, ObjectNode body) {
            Receipt head = null;
            for (Receipt r : receipts) {
                if (tokenRef.equals(r.client())) {
                    head = r;
                }
            }
            at = at.plusSeconds(1);
            receipts.add(SIGNER.sign(ReceiptDraft.inClient("rcpt-" + receipts.size(), kind, at, tokenRef,
                    head == null ? 1 : head.seq() + 1, head == null ? null : head.hash(), request, body)));
            return this;
        }

        List<Receipt> receipts() {
            return List.copyOf(receipts);
        }
    }

    private static ClientState fold(List<Receipt> receipts) {
        ClientState state = null;
        CallRecords calls = new CallRecords();
        for (Receipt r : receipts) {
            state = ClientFold.apply(state, r, calls);
        }
        return state;
    }

    @Test
    void aStreamCountsItsCallsAndChainsItsReceipts() {
        List<Receipt> receipts = new Stream().decide(ALICE, "r-1", true, "alice").outcome(ALICE, "r-1", "ok")
                .decide(ALICE, "r-2", false, "alice").decide(ALICE, "r-3", true, "alice")
                .outcome(ALICE, "r-3", "unknown").resolve(ALICE, "r-3", "not_run").decide(ALICE, "r-4", true, "alice")
                .receipts();

        ClientState state = fold(receipts);

        assertThat(Canonical.jcs(state.toJson())).isEqualTo("{\"calls\":{\"admitted\":3,\"completed\":2,\"pending\":1,"
                + "\"refused\":1,\"unknown\":0},\"head\":\"" + receipts.get(6).hash() + "\",\"principal\":\"alice\","
                + "\"seq\":7,\"tokenRef\":\"" + ALICE + "\"}");
    }

    @Test
    void aStreamStartsWithADecision() {
        List<Receipt> receipts = new Stream().decide(ALICE, "r-1", true, "alice").outcome(ALICE, "r-1", "ok")
                .receipts();

        assertThatThrownBy(() -> ClientFold.apply(null, receipts.get(1), new CallRecords()))
                .isInstanceOf(FoldException.class).hasMessageContaining("has no decision before its call.outcome");
    }

    @Test
    void everyDecisionNamesThePrincipalOfTheFirst() {
        List<Receipt> receipts = new Stream().decide(ALICE, "r-1", true, "alice").decide(ALICE, "r-2", true, "mallory")
                .receipts();

        assertThatThrownBy(() -> fold(receipts)).isInstanceOf(FoldException.class)
                .hasMessage("client " + ALICE + " is principal alice, but call.admitted rcpt-1 names mallory");
    }

    @Test
    void aPrincipalOrIncarnationThatIsNotAStringIsReadAsTheBodysTreeReadsIt() {
        // The fold reads a decision's principal and edge incarnation where they stand in the line when they are
        // strings; what else a signed receipt may hold is read from the body's tree, as it always was.
        ObjectNode noPrincipal = Canonical.JSON.createObjectNode().put("tool", "quote");
        ObjectNode numbers = Canonical.JSON.createObjectNode().put("principal", 7).put("tool", "quote");
        numbers.putObject("edge").put("id", "edge-1").put("incarnation", 3);
        ObjectNode noEdge = Canonical.JSON.createObjectNode().put("principal", "7").put("tool", "quote");

        assertThatThrownBy(() -> fold(new Stream().add(ALICE, ReceiptKind.CALL_ADMITTED, "r-1", noPrincipal)
                .receipts())).isInstanceOf(FoldException.class).hasMessage("call.admitted rcpt-0 of client " + ALICE
                + " names no principal");
        List<Receipt> receipts = new Stream().add(ALICE, ReceiptKind.CALL_ADMITTED, "r-1", numbers)
                .add(ALICE, ReceiptKind.CALL_ADMITTED, "r-2", noEdge).receipts();
        ClientState state = fold(receipts);
        assertThat(state.toJson().path("principal").asText()).as("the number 7 and the string \"7\" are one principal")
                .isEqualTo("7");
        assertThat(state.toJson().path("seq").asLong()).isEqualTo(2);
    }

    @Test
    void aBrokenChainIsNamed() {
        List<Receipt> receipts = new Stream().decide(ALICE, "r-1", true, "alice").outcome(ALICE, "r-1", "ok")
                .decide(ALICE, "r-2", true, "alice").receipts();

        assertThatThrownBy(() -> fold(List.of(receipts.get(0), receipts.get(2)))).isInstanceOf(FoldException.class)
                .hasMessage("client " + ALICE + " expects seq 2 but found 3");
        List<Receipt> other = new Stream().decide(ALICE, "r-9", true, "alice").outcome(ALICE, "r-9", "ok")
                .receipts();
        assertThatThrownBy(() -> fold(List.of(receipts.get(0), other.get(1)))).isInstanceOf(FoldException.class)
                .hasMessage("client " + ALICE + " seq 2: prev does not match the hash of seq 1");
    }

    @Test
    void callsFollowTheSessionsRules() {
        assertThatThrownBy(() -> fold(new Stream().decide(ALICE, "r-1", false, "alice").outcome(ALICE, "r-1", "ok")
                .receipts())).hasMessage("call.outcome for request r-1 which was not admitted");
        assertThatThrownBy(() -> fold(new Stream().decide(ALICE, "r-1", true, "alice").outcome(ALICE, "r-1", "ok")
                .outcome(ALICE, "r-1", "error").receipts())).hasMessage("request r-1 already has outcome OK");
        assertThatThrownBy(() -> fold(new Stream().decide(ALICE, "r-1", true, "alice").decide(ALICE, "r-1", true,
                "alice").receipts())).hasMessage("request r-1 is admitted after an earlier decision");
        assertThatThrownBy(() -> fold(new Stream().decide(ALICE, "r-1", true, "alice").outcome(ALICE, "r-1", "ok")
                .resolve(ALICE, "r-1", "ok").receipts())).hasMessage("request r-1 is resolved but is not unknown");
    }

    @Test
    void theLedgerFoldKeepsEachClientsStreamAndTheDigestGainsClients() {
        MemoryLedgerState sessionsOnly = new MemoryLedgerState();
        SessionScript.initialized().call("q-1", "quote", SessionScript.ARGS, 1).receipts()
                .forEach(r -> LedgerFold.apply(sessionsOnly, r));
        assertThat(ProjectionDigest.document(sessionsOnly).has("clients"))
                .as("a log without client streams keeps its digest").isFalse();

        MemoryLedgerState state = new MemoryLedgerState();
        SessionScript.initialized().call("q-1", "quote", SessionScript.ARGS, 1).receipts()
                .forEach(r -> LedgerFold.apply(state, r));
        new Stream().decide(BOB, "r-1", true, "bob").decide(ALICE, "r-1", true, "alice").outcome(BOB, "r-1", "ok")
                .receipts().forEach(r -> LedgerFold.apply(state, r));

        assertThat(state.clients().keySet()).containsExactly(ALICE, BOB);
        assertThat(state.clients().get(BOB).completed()).isEqualTo(1);
        assertThat(state.clients().get(ALICE).pending()).isEqualTo(1);
        assertThat(state.size()).isEqualTo(5);
        ObjectNode document = ProjectionDigest.document(state);
        assertThat(document.fieldNames()).toIterable().startsWith("clients");
        assertThat(document.path("clients").get(0).path("tokenRef").asText()).isEqualTo(ALICE);
        assertThat(ProjectionDigest.of(state)).as("streamed as the document is written")
                .isEqualTo(ProjectionDigest.of(document))
                .isEqualTo(Sha256.hex(Canonical.jcsBytes(document)))
                .isNotEqualTo(ProjectionDigest.of(sessionsOnly));
    }

    @Test
    void clientsStreamBeforeEverythingElse() {
        ProjectionDigest.Stream digest = new ProjectionDigest.Stream(null).revokedPrincipal(ALICE);

        assertThatThrownBy(() -> digest.clientView("{}".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("client streams come before every revoked principal and session");
    }
}
