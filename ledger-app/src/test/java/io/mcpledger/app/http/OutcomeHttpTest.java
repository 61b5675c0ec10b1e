package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.IDLE_EXPIRY;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.SessionIds;
import org.junit.jupiter.api.Test;

/**
 * Outcomes and resolutions (contract section 4): ok and error are final and idempotent, unknown is settled only by an
 * operator, and outcomes are accepted whatever the session's state but only from the owning token.
 */
class OutcomeHttpTest extends SharedLedgerTest {
    private static final String RESULT = Sha256.hexOfUtf8("result");
    private static final String OTHER_RESULT = Sha256.hexOfUtf8("another result");
    private static final String OK = "{\"status\":\"ok\",\"resultSha256\":\"" + RESULT + "\"}";
    private static final String UNKNOWN_CONFLICT = "request r1 has an unknown outcome; only an operator's resolution can"
            + " settle it now";

    // Outcomes.

    @Test
    void anOkOutcomeAnswers200WithACallOutcomeReceipt() throws Exception {
        String id = admitted("ok");
        long before = ledger.receipts();

        Reply reply = ledger.outcome(id, "ok", "r1", OK);

        reply.assertStatus(200);
        assertThat(reply.json().size()).isEqualTo(1);
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("call.outcome");
        assertThat(receipt.session()).isEqualTo(id);
        assertThat(receipt.request()).isEqualTo("r1");
        assertThat(receipt.seq()).isEqualTo(3);
        assertThat(receipt.body()).isEqualTo(parse(OK));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(calls(id)).isEqualTo(parse("{\"admitted\":1,\"refused\":0,\"completed\":1,\"unknown\":0,\"pending\":0}"));
    }

    @Test
    void anErrorOutcomeIsRecordedWithItsDetail() throws Exception {
        String id = admitted("error");

        Reply reply = ledger.outcome(id, "error", "r1", "{\"status\":\"error\",\"detail\":\"upstream timed out\"}");

        assertThat(reply.assertStatus(200).receipt().body())
                .isEqualTo(parse("{\"status\":\"error\",\"detail\":\"upstream timed out\"}"));
        assertThat(calls(id).path("completed").asLong()).isEqualTo(1);
    }

    @Test
    void theSameOkOutcomeAgainRepeatsItsReceiptAndAppendsNothing() throws Exception {
        String id = admitted("ok-twice");
        Reply first = ledger.outcome(id, "ok-twice", "r1", OK);
        long before = ledger.receipts();

        Reply again = ledger.outcome(id, "ok-twice", "r1", OK);

        assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameOutcomeWithAnotherDetailRepeatsItsReceipt() throws Exception {
        String id = admitted("detail");
        Reply first = ledger.outcome(id, "detail", "r1", "{\"status\":\"error\",\"detail\":\"first try\"}");
        long before = ledger.receipts();

        Reply again = ledger.outcome(id, "detail", "r1", "{\"status\":\"error\",\"detail\":\"said again\"}");

        assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anotherStatusAfterAFinalOutcomeIs409OutcomeConflict() throws Exception {
        String id = admitted("ok-then-error");
        ledger.outcome(id, "ok-then-error", "r1", OK).assertStatus(200);
        long before = ledger.receipts();

        ledger.outcome(id, "ok-then-error", "r1", "{\"status\":\"error\"}").assertError(409, "outcome_conflict",
                "request r1 already has the final outcome ok with resultSha256 " + RESULT);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anotherResultAfterAFinalOutcomeIs409OutcomeConflict() throws Exception {
        String id = admitted("other-result");
        ledger.outcome(id, "other-result", "r1", OK).assertStatus(200);

        ledger.outcome(id, "other-result", "r1", "{\"status\":\"ok\",\"resultSha256\":\"" + OTHER_RESULT + "\"}")
                .assertError(409, "outcome_conflict", "request r1 already has the final outcome ok with resultSha256 "
                        + RESULT);
    }

    @Test
    void unknownAfterAFinalOutcomeIs409OutcomeConflict() throws Exception {
        String id = admitted("error-then-unknown");
        ledger.outcome(id, "error-then-unknown", "r1", "{\"status\":\"error\"}").assertStatus(200);

        ledger.outcome(id, "error-then-unknown", "r1", "{\"status\":\"unknown\"}")
                .assertError(409, "outcome_conflict", "request r1 already has the final outcome error");
    }

    @Test
    void anOutcomeForARequestNeverMadeIs404CallNotFound() throws Exception {
        String id = ledger.initialize("no-call");
        long before = ledger.receipts();

        ledger.outcome(id, "no-call", "r9", OK).assertError(404, "call_not_found", "no call with requestId r9 in this session");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anOutcomeForARefusedCallIs409CallNotAdmitted() throws Exception {
        String id = ledger.initialize("refused");
        ledger.call(id, "refused", "r1", "refund").assertStatus(200);
        long before = ledger.receipts();

        ledger.outcome(id, "refused", "r1", OK).assertError(409, "call_not_admitted", "request r1 was refused, not admitted");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anOutcomeWithAForeignTokenIs404SessionNotFoundAndAppendsNothing() throws Exception {
        String id = admitted("outcome-owner");
        long before = ledger.receipts();

        ledger.outcome(id, "mallory", "r1", OK).assertError(404, "session_not_found", "session not found");

        assertThat(ledger.receipts()).isEqualTo(before);
        ledger.outcome(id, "outcome-owner", "r1", OK).assertStatus(200);
    }

    @Test
    void anOutcomeOnAnIdNeverIssuedIs404SessionNotFound() throws Exception {
        String neverIssued = SessionIds.issue(clientToken("never"), new byte[16]);

        ledger.outcome(neverIssued, "never", "r1", OK).assertError(404, "session_not_found", "session not found");
    }

    @Test
    void anOutcomeAfterDeleteIsAccepted() throws Exception {
        String id = admitted("after-delete");
        ledger.edge("DELETE", "/v1/sessions/" + id).client(clientToken("after-delete")).send().assertStatus(200);

        Reply reply = ledger.outcome(id, "after-delete", "r1", OK);

        assertThat(reply.assertStatus(200).receipt().kind().wire()).isEqualTo("call.outcome");
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "session.deleted",
                "call.outcome");
    }

    @Test
    void anOutcomeAfterExpiryIsAccepted() throws Exception {
        String id = admitted("after-expiry");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        ledger.resume(id, "after-expiry", null).assertStatus(410);

        Reply reply = ledger.outcome(id, "after-expiry", "r1", OK);

        assertThat(reply.assertStatus(200).receipt().kind().wire()).isEqualTo("call.outcome");
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "session.expired",
                "call.outcome");
    }

    // SPEC: section 4 makes expired final and checks idle expiry lazily on every request, so an outcome that
    // arrives after the idle expiry is accepted but must not bring the session back: it stays expired. The ledger
    // appends no session.expired here and lets call.outcome move lastActivityAt, so the session resumes with 200.
    @Test
    void anOutcomeOnAnIdleSessionIsAcceptedAndLeavesTheSessionExpired() throws Exception {
        String id = admitted("idle-outcome");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));

        ledger.outcome(id, "idle-outcome", "r1", OK).assertStatus(200);

        ledger.resume(id, "idle-outcome", null).assertStatus(410);
        assertThat(ledger.kindsOf(id)).contains("session.expired");
    }

    // Unknown outcomes and resolutions.

    @Test
    void anEdgeMayReportAnUnknownOutcome() throws Exception {
        String id = admitted("edge-unknown");

        Reply reply = ledger.outcome(id, "edge-unknown", "r1", "{\"status\":\"unknown\"}");

        assertThat(reply.assertStatus(200).receipt().body()).isEqualTo(parse("{\"status\":\"unknown\"}"));
        assertThat(calls(id).path("unknown").asLong()).isEqualTo(1);
    }

    @Test
    void aCallMadeUnknownByAResumeAcceptsNoEdgeOutcome() throws Exception {
        String id = unknown("resumed-unknown");
        long before = ledger.receipts();

        ledger.outcome(id, "resumed-unknown", "r1", OK).assertError(409, "outcome_conflict", UNKNOWN_CONFLICT);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anUnknownCallAcceptsNotEvenUnknownAgain() throws Exception {
        String id = unknown("unknown-again");

        ledger.outcome(id, "unknown-again", "r1", "{\"status\":\"unknown\"}")
                .assertError(409, "outcome_conflict", UNKNOWN_CONFLICT);
    }

    @Test
    void anOperatorResolutionSettlesAnUnknownCall() throws Exception {
        String id = unknown("resolved");
        long before = ledger.receipts();

        Reply reply = resolve(id, "{\"status\":\"not_run\",\"note\":\"the tool has no record of it\"}");

        reply.assertStatus(200);
        assertThat(reply.json().size()).isEqualTo(1);
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("call.resolved");
        assertThat(receipt.request()).isEqualTo("r1");
        assertThat(receipt.body()).isEqualTo(parse("{\"status\":\"not_run\",\"note\":\"the tool has no record of it\"}"));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(calls(id)).isEqualTo(parse("{\"admitted\":1,\"refused\":0,\"completed\":1,\"unknown\":0,\"pending\":0}"));
    }

    @Test
    void anEdgeOutcomeAfterAResolutionIs409OutcomeConflict() throws Exception {
        String id = unknown("resolved-then-edge");
        resolve(id, "{\"status\":\"ok\",\"note\":\"checked\"}").assertStatus(200);

        ledger.outcome(id, "resolved-then-edge", "r1", OK).assertError(409, "outcome_conflict", UNKNOWN_CONFLICT);
    }

    @Test
    void resolvingAResolvedCallIs409CallNotUnknown() throws Exception {
        String id = unknown("resolved-twice");
        resolve(id, "{\"status\":\"ok\",\"note\":\"checked\"}").assertStatus(200);
        long before = ledger.receipts();

        resolve(id, "{\"status\":\"ok\",\"note\":\"checked\"}").assertError(409, "call_not_unknown",
                "request r1 is not unknown: already resolved as ok");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void resolvingAPendingCallIs409CallNotUnknown() throws Exception {
        String id = admitted("resolve-pending");

        resolve(id, "{\"status\":\"ok\",\"note\":\"too early\"}").assertError(409, "call_not_unknown",
                "request r1 is not unknown: its outcome is pending");
    }

    @Test
    void resolvingACompletedCallIs409CallNotUnknown() throws Exception {
        String id = admitted("resolve-completed");
        ledger.outcome(id, "resolve-completed", "r1", OK).assertStatus(200);

        resolve(id, "{\"status\":\"error\",\"note\":\"disagree\"}").assertError(409, "call_not_unknown",
                "request r1 is not unknown: its outcome is ok");
    }

    @Test
    void resolvingARequestNeverMadeIs404CallNotFound() throws Exception {
        String id = ledger.initialize("resolve-none");

        resolve(id, "{\"status\":\"ok\",\"note\":\"n\"}").assertError(404, "call_not_found",
                "no call with requestId r1 in this session");
    }

    @Test
    void resolvingARefusedCallIs409CallNotAdmitted() throws Exception {
        String id = ledger.initialize("resolve-refused");
        ledger.call(id, "resolve-refused", "r1", "refund").assertStatus(200);

        resolve(id, "{\"status\":\"ok\",\"note\":\"n\"}").assertError(409, "call_not_admitted",
                "request r1 was refused, not admitted");
    }

    /** A session of {@code client} with call r1 (quote) admitted. */
    private static String admitted(String client) throws Exception {
        String id = ledger.initialize(client);
        ledger.call(id, client, "r1", "quote").assertStatus(200);
        return id;
    }

    /** A session of {@code client} whose call r1 was admitted by incarnation inc-1 and made unknown by inc-2's resume. */
    private static String unknown(String client) throws Exception {
        String id = ledger.initialize(client, "{\"principal\":\"" + client + "\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}}")
                .assertStatus(201).session().path("id").asText();
        ledger.call(id, client, "r1", "quote").assertStatus(200);
        ledger.resume(id, client, "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}").assertStatus(200);
        return id;
    }

    private static Reply resolve(String id, String json) throws Exception {
        return ledger.operator("POST", "/v1/sessions/" + id + "/calls/r1/resolution").json(json).send();
    }

    private static JsonNode calls(String id) throws Exception {
        return ledger.auditor("GET", "/v1/sessions/" + id).send().assertStatus(200).json().path("calls");
    }
}
