package io.mcpledger.domain.ledger;

import static io.mcpledger.domain.session.SessionScript.ANY_PRICING_TOOL;
import static io.mcpledger.domain.session.SessionScript.ARGS;
import static io.mcpledger.domain.session.SessionScript.ARGS2;
import static io.mcpledger.domain.session.SessionScript.DISCOUNT_ONLY;
import static io.mcpledger.domain.session.SessionScript.EDGE_1;
import static io.mcpledger.domain.session.SessionScript.EDGE_2;
import static io.mcpledger.domain.session.SessionScript.QUOTE_AND_DISCOUNT;
import static io.mcpledger.domain.session.SessionScript.SESSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.FoldException;
import io.mcpledger.domain.session.SessionScript;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/** The investigation of one call (contract section 10), over receipts signed by the real session aggregate. */
class InvestigationTest {
    /** The grants QUOTE_AND_DISCOUNT issues at T0 (ttl 300 s), as the session.initialized receipt carries them. */
    private static final String CAP_1 = "{\"grants\":["
            + "{\"notAfter\":\"2026-11-30T07:05:00.000Z\",\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"quote\"},"
            + "{\"notAfter\":\"2026-11-30T07:05:00.000Z\",\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"discount\"}],"
            + "\"id\":\"cap-1\"}";

    private static Investigation investigate(SessionScript script, String requestId) {
        return Investigation.of(script.receipts(), requestId);
    }

    private static List<String> ids(JsonNode array, String field) {
        return StreamSupport.stream(array.spliterator(), false).map(n -> n.path(field).asText()).toList();
    }

    @Test
    void aCallWithAnOkOutcomeIsCompletedOk() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.COMPLETED_OK);
    }

    @Test
    void aCallWithAnErrorOutcomeIsCompletedError() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "error", 2);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.COMPLETED_ERROR);
    }

    @Test
    void aCallOutsideTheCapabilityIsRefused() {
        SessionScript s = SessionScript.initialized().call("req-1", "refund", ARGS, 1);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.REFUSED);
    }

    @Test
    void anAdmittedCallRefusedAgainAfterExpiryIsStillJudgedByItsOutcome() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2)
                .call("req-1", "quote", ARGS, 40);

        Investigation inv = investigate(s, "req-1");

        assertThat(inv.verdict()).isEqualTo(Verdict.COMPLETED_OK);
        assertThat(ids(inv.toJson().get("timeline"), "kind")).containsExactly("call.admitted", "call.outcome", "call.refused");
    }

    @Test
    void anUnknownCallAnOperatorResolvedAsNotRunIsNotRun() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2)
                .resolve("req-1", "not_run", "checked the pricing log", 3);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.NOT_RUN);
    }

    @Test
    void anUnknownCallAnOperatorResolvedAsErrorIsCompletedError() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2)
                .resolve("req-1", "error", "the pricing log shows a failure", 3);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.COMPLETED_ERROR);
    }

    @Test
    void theResolutionNamesItsStatusNoteAndReceipt() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2)
                .resolve("req-1", "not_run", "checked the pricing log", 3);

        assertThat(Canonical.jcs(investigate(s, "req-1").toJson().get("resolution")))
                .isEqualTo("{\"note\":\"checked the pricing log\",\"receipt\":\"rcpt-5\",\"status\":\"not_run\"}");
    }

    @Test
    void aCallLeftPendingWhenAnotherIncarnationResumedIsOutcomeUnknown() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.OUTCOME_UNKNOWN);
    }

    @Test
    void aPendingCallOfAnEarlierIncarnationIsOutcomeUnknownEvenBeforeItsUnknownOutcomeReceipt() {
        List<Receipt> receipts = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2).receipts();
        List<Receipt> cutAfterResume = receipts.subList(0, 3);

        Investigation inv = Investigation.of(cutAfterResume, "req-1");

        assertThat(cutAfterResume.get(2).kind().wire()).isEqualTo("session.resumed");
        assertThat(inv.verdict()).isEqualTo(Verdict.OUTCOME_UNKNOWN);
    }

    @Test
    void aCallTheEdgeReportedUnknownIsOutcomeUnknown() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "unknown", 2);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.OUTCOME_UNKNOWN);
    }

    @Test
    void anAdmittedCallWithoutOutcomeIsPending() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.PENDING);
    }

    @Test
    void aCallStaysPendingWhenTheSameIncarnationResumes() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_1, 2);

        assertThat(investigate(s, "req-1").verdict()).isEqualTo(Verdict.PENDING);
    }

    @Test
    void aRequestTheSessionNeverSawIsNotFoundInThatSession() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1);

        Investigation inv = investigate(s, "req-9");

        assertThat(inv.verdict()).isEqualTo(Verdict.NOT_FOUND);
        assertThat(Canonical.jcs(inv.toJson())).isEqualTo("{\"laterCalls\":[],\"requestId\":\"req-9\",\"session\":\""
                + SESSION + "\",\"timeline\":[],\"verdict\":\"not_found\"}");
    }

    @Test
    void aRequestNoSessionUsedIsNotFoundWithoutASession() {
        Investigation inv = Investigation.notFound(null, "req-9");

        assertThat(inv.verdict()).isEqualTo(Verdict.NOT_FOUND);
        assertThat(Canonical.jcs(inv.toJson()))
                .isEqualTo("{\"laterCalls\":[],\"requestId\":\"req-9\",\"timeline\":[],\"verdict\":\"not_found\"}");
    }

    @Test
    void theCapabilityAndPolicyAreThoseInForceAtAdmissionNotThoseOfALaterResume() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1)
                .activate(ANY_PRICING_TOOL).resume(EDGE_1, 2).outcome("req-1", "ok", 3);

        ObjectNode json = investigate(s, "req-1").toJson();

        assertThat(s.receipts().get(2).body().path("capability").path("id").asText()).isEqualTo("cap-2");
        assertThat(Canonical.jcs(json.get("capability"))).isEqualTo(CAP_1);
        assertThat(json.get("policy").asText()).isEqualTo(QUOTE_AND_DISCOUNT.hash());
    }

    @Test
    void aCallAdmittedAfterAResumeNamesTheCapabilityThatResumeIssued() {
        SessionScript s = SessionScript.initialized().activate(ANY_PRICING_TOOL).resume(EDGE_1, 1)
                .call("req-1", "refund", ARGS, 2);

        ObjectNode json = investigate(s, "req-1").toJson();

        assertThat(Canonical.jcs(json.get("capability"))).isEqualTo("{\"grants\":[{\"notAfter\":\"2026-11-30T07:06:00.000Z\","
                + "\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"*\"}],\"id\":\"cap-2\"}");
        assertThat(json.get("policy").asText()).isEqualTo(ANY_PRICING_TOOL.hash());
    }

    @Test
    void laterCallsWithTheSameToolAndArgumentsAreListedWithTheirOwnVerdicts() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2)
                .call("req-2", "quote", ARGS, 3).outcome("req-2", "ok", 4)
                .activate(DISCOUNT_ONLY).call("req-3", "quote", ARGS, 5);

        ObjectNode json = investigate(s, "req-1").toJson();

        assertThat(Canonical.jcs(json.get("laterCalls"))).isEqualTo("["
                + "{\"at\":\"2026-11-30T07:03:00.000Z\",\"decision\":\"admitted\",\"receipt\":\"rcpt-5\","
                + "\"requestId\":\"req-2\",\"verdict\":\"completed_ok\"},"
                + "{\"at\":\"2026-11-30T07:05:00.000Z\",\"decision\":\"refused\",\"receipt\":\"rcpt-7\","
                + "\"requestId\":\"req-3\",\"verdict\":\"refused\"}]");
    }

    @Test
    void laterCallsWithOtherArgumentsOrAnotherToolAreNotListed() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1)
                .call("req-2", "quote", ARGS2, 2).call("req-3", "discount", ARGS, 3);

        assertThat(investigate(s, "req-1").toJson().get("laterCalls")).isEmpty();
    }

    @Test
    void earlierCallsWithTheSameToolAndArgumentsAreNotListed() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).call("req-2", "quote", ARGS, 2);

        assertThat(investigate(s, "req-2").toJson().get("laterCalls")).isEmpty();
    }

    @Test
    void theTimelineListsEveryReceiptOfTheRequestInSeqOrder() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).call("req-2", "quote", ARGS2, 2)
                .resume(EDGE_2, 3).resolve("req-1", "ok", "ran, per the pricing log", 4);

        JsonNode timeline = investigate(s, "req-1").toJson().get("timeline");

        assertThat(ids(timeline, "id")).containsExactly("rcpt-2", "rcpt-5", "rcpt-7");
        assertThat(ids(timeline, "kind")).containsExactly("call.admitted", "call.outcome", "call.resolved");
    }

    @Test
    void everyRefusalOfARequestIsInItsTimeline() {
        SessionScript s = SessionScript.initialized().call("req-1", "refund", ARGS, 1).call("req-1", "refund", ARGS, 40);

        Investigation inv = investigate(s, "req-1");
        JsonNode timeline = inv.toJson().get("timeline");

        assertThat(inv.verdict()).isEqualTo(Verdict.REFUSED);
        assertThat(ids(timeline, "id")).containsExactly("rcpt-2", "rcpt-4");
        assertThat(StreamSupport.stream(timeline.spliterator(), false).map(r -> r.at("/body/reason/code").asText()))
                .containsExactly("not_in_scope", "session_expired");
    }

    @Test
    void timelineEntriesAreTheReceiptsExactCanonicalObjects() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2);
        List<Receipt> receipts = s.receipts();

        JsonNode timeline = investigate(s, "req-1").toJson().get("timeline");

        List<String> lines = new ArrayList<>();
        timeline.forEach(r -> lines.add(Canonical.jcs(r)));
        assertThat(lines).containsExactly(receipts.get(1).line(), receipts.get(2).line());
    }

    @Test
    void theJsonNamesVerdictSessionRequestTimelineAuthorityLaterCallsAndResolution() {
        SessionScript s = SessionScript.initialized().call("req-1", "quote", ARGS, 1).resume(EDGE_2, 2)
                .resolve("req-1", "ok", "ran, per the pricing log", 3).call("req-2", "quote", ARGS, 4);
        List<Receipt> r = s.receipts();

        ObjectNode json = investigate(s, "req-1").toJson();

        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("verdict", "session", "requestId", "timeline", "capability", "policy",
                "laterCalls", "resolution");
        assertThat(Canonical.jcs(json)).isEqualTo("{\"capability\":" + CAP_1
                + ",\"laterCalls\":[{\"at\":\"2026-11-30T07:04:00.000Z\",\"decision\":\"admitted\",\"receipt\":\"rcpt-6\","
                + "\"requestId\":\"req-2\",\"verdict\":\"pending\"}]"
                + ",\"policy\":\"" + QUOTE_AND_DISCOUNT.hash() + "\",\"requestId\":\"req-1\""
                + ",\"resolution\":{\"note\":\"ran, per the pricing log\",\"receipt\":\"rcpt-5\",\"status\":\"ok\"}"
                + ",\"session\":\"" + SESSION + "\""
                + ",\"timeline\":[" + r.get(1).line() + "," + r.get(3).line() + "," + r.get(4).line() + "]"
                + ",\"verdict\":\"completed_ok\"}");
    }

    @Test
    void aResolutionOutsideOkErrorAndNotRunIsAnInvalidLog() {
        // The aggregate refuses to apply such a resolution, so a key holder signs one by hand after a valid one.
        List<Receipt> receipts = new ArrayList<>(SessionScript.initialized().call("req-1", "quote", ARGS, 1)
                .resume(EDGE_2, 2).resolve("req-1", "ok", "unsure", 3).receipts());
        Receipt ok = receipts.remove(receipts.size() - 1);
        com.fasterxml.jackson.databind.node.ObjectNode body =
                (com.fasterxml.jackson.databind.node.ObjectNode) ok.body();
        body.put("status", "maybe");
        receipts.add(new io.mcpledger.domain.receipt.ReceiptSigner(
                io.mcpledger.domain.crypto.SigningKey.fromSeed(io.mcpledger.domain.session.TestLedger.SEED),
                io.mcpledger.domain.session.TestLedger.ORIGIN).sign(new io.mcpledger.domain.receipt.ReceiptDraft(ok.id(),
                ok.kind(), ok.at(), ok.session(), ok.seq(), ok.prev(), ok.request(), body)));

        assertThatThrownBy(() -> Investigation.of(receipts, "req-1"))
                .isInstanceOf(FoldException.class)
                .hasMessage("request req-1 is resolved with status 'maybe'; only ok, error and not_run settle a call");
    }

    @Test
    void aBrokenChainIsAnInvalidLog() {
        List<Receipt> receipts = new ArrayList<>(
                SessionScript.initialized().call("req-1", "quote", ARGS, 1).outcome("req-1", "ok", 2).receipts());
        receipts.remove(1);

        assertThatThrownBy(() -> Investigation.of(receipts, "req-1"))
                .isInstanceOf(FoldException.class)
                .hasMessage("session " + SESSION + " expects seq 2 but found 3");
    }
}
