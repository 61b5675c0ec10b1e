package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.TokenRefs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Calls without a session (contract section 15), through HTTP on H2 and PostgreSQL: each client token's calls are a
 * stream of their own, decided by the current policy's grants for the principal, idempotent by requestId, stopped at
 * once by a revocation, settled by the edge's next incarnation, and kept across a restart with the digest the log
 * alone gives.
 */
class ClientCallsHttpTest extends SharedLedgerTest {
    private static final String RESULT = Sha256.hexOfUtf8("result");

    private static Reply call(HttpLedger on, String client, String json) throws Exception {
        return on.edge("POST", "/v1/calls").client(clientToken(client)).json(json).send();
    }

    private static Reply call(HttpLedger on, String client, String requestId, String tool) throws Exception {
        return call(on, client, HttpLedger.clientCallJson(client, requestId, tool, "edge-" + client, "i-1"));
    }

    private static Reply outcome(HttpLedger on, String client, String requestId, String json) throws Exception {
        return on.edge("POST", "/v1/calls/" + requestId + "/outcome").client(clientToken(client)).json(json).send();
    }

    private static String tokenRef(String client) {
        return TokenRefs.of(clientToken(client));
    }

    // Admission.

    @Test
    void anAdmittedCallIsTheFirstReceiptOfTheClientsStream() throws Exception {
        Reply reply = call(ledger, "admitted", "r1", "quote");

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactly("decision", "callId", "receipt");
        assertThat(reply.json().path("decision").asText()).isEqualTo("admitted");
        assertThat(reply.json().path("callId").asText()).isEqualTo("r1");
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("call.admitted");
        assertThat(receipt.client()).isEqualTo(tokenRef("admitted"));
        assertThat(receipt.session()).isNull();
        assertThat(receipt.seq()).isEqualTo(1);
        assertThat(receipt.prev()).isNull();
        JsonNode body = receipt.body();
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrder("principal", "serverId", "protocolVersion", "clientInfo", "edge",
                "server", "tool", "operation", "argumentsSha256", "jsonrpcId", "policy", "grant");
        assertThat(body.path("principal").asText()).isEqualTo("admitted");
        assertThat(body.path("edge")).isEqualTo(parse("{\"id\":\"edge-admitted\",\"incarnation\":\"i-1\"}"));
        assertThat(body.path("jsonrpcId").isInt()).isTrue();
        assertThat(body.path("policy").asText())
                .isEqualTo(ledger.auditor("GET", "/v1/policy").send().json().path("policy").asText());
        assertThat(body.path("grant").path("tool").asText()).isEqualTo("quote");
        assertThat(body.path("grant").path("notAfter").asText()).isEqualTo("2026-11-30T07:05:00.000Z");
    }

    @Test
    void theNextCallContinuesTheStreamsChain() throws Exception {
        Receipt first = call(ledger, "chained", "r1", "quote").assertStatus(200).receipt();

        Receipt second = call(ledger, "chained", "r2", "discount").assertStatus(200).receipt();

        assertThat(second.seq()).isEqualTo(2);
        assertThat(second.prev()).isEqualTo(first.hash());
    }

    @Test
    void aToolThePolicyDoesNotGrantIsRefusedNotInScopeWithoutAGrant() throws Exception {
        Reply reply = call(ledger, "out-of-scope", "r1", "refund").assertStatus(200);

        assertThat(reply.json().path("decision").asText()).isEqualTo("refused");
        assertThat(reply.json().path("reason")).isEqualTo(parse("{\"code\":\"not_in_scope\",\"message\":\"requested"
                + " tool refund on server pricing is not in capability scope\"}"));
        assertThat(reply.receipt().kind().wire()).isEqualTo("call.refused");
        assertThat(reply.receipt().body().has("grant")).isFalse();
        assertThat(reply.receipt().body().path("reason").path("code").asText()).isEqualTo("not_in_scope");
    }

    @Test
    void aVersionOfTheSessionEraIs400AndAppendsNothing() throws Exception {
        long before = ledger.receipts();

        call(ledger, "old-version", HttpLedger.clientCallJson("old-version", "r1", "quote", "e", "i")
                .replace("2026-07-28", "2025-11-25"))
                .assertError(400, "unsupported_protocol_version", "unsupported protocolVersion 2025-11-25 for a call"
                        + " without a session; supported: 2026-07-28 (the initialize-era versions call through a"
                        + " session)");
        ledger.initialize("new-version", HttpLedger.initializeJson("new-version").replace("2025-06-18", "2026-07-28"))
                .assertStatus(400);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRequestAgainRepeatsItsAnswerAndAnotherOneWithTheSameIdIs409() throws Exception {
        Reply first = call(ledger, "repeated", "r1", "quote").assertStatus(200);
        ledger.putPolicy("capabilities: {}").assertStatus(200);
        long before = ledger.receipts();
        try {
            Reply again = call(ledger, "repeated", "r1", "quote");
            Reply other = call(ledger, "repeated", "r1", "discount");

            assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
            other.assertError(409, "request_id_conflict", "requestId r1 was already used in this client's calls with a"
                    + " different server, tool, operation or argumentsSha256");
            assertThat(ledger.receipts()).isEqualTo(before);
        } finally {
            ledger.putPolicy(HttpLedger.PRICING_POLICY).assertStatus(200);
        }
    }

    @Test
    void anotherPrincipalForTheSameTokenIs409AndAppendsNothing() throws Exception {
        call(ledger, "principal", "r1", "quote").assertStatus(200);
        long before = ledger.receipts();

        call(ledger, "principal", HttpLedger.clientCallJson("someone-else", "r2", "quote", "e", "i"))
                .assertError(409, "principal_conflict", "this client token stands for principal principal, not"
                        + " someone-else: a token's calls keep the principal of its first call");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aRevokedTokenIsRefusedAtOnceWithAReceiptRepeatedForTheSameRequest() throws Exception {
        call(ledger, "revoked", "r1", "quote").assertStatus(200);
        ledger.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + clientToken("revoked") + "\"}")
                .send().assertStatus(200);

        Receipt refused = call(ledger, "revoked", "r2", "quote")
                .assertErrorWithReceipt(403, "token_revoked", "the client token has been revoked");
        long before = ledger.receipts();
        Reply again = call(ledger, "revoked", "r2", "quote");

        assertThat(refused.kind().wire()).isEqualTo("call.refused");
        assertThat(refused.body().path("reason").path("code").asText()).isEqualTo("token_revoked");
        assertThat(again.assertErrorWithReceipt(403, "token_revoked", "the client token has been revoked"))
                .isEqualTo(refused);
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aCallWithoutItsEdgeOrItsTokenIs400() throws Exception {
        long before = ledger.receipts();

        call(ledger, "no-edge", HttpLedger.clientCallJson("no-edge", "r1", "quote", "e", "i")
                .replace("\"edge\":{\"id\":\"e\",\"incarnation\":\"i\"},", ""))
                .assertError(400, "invalid_request", "field edge is required for a call without a session: {\"id\","
                        + " \"incarnation\"}, so that the edge's next incarnation settles the calls it leaves pending");
        ledger.edge("POST", "/v1/calls").json(HttpLedger.clientCallJson("no-token", "r1", "quote", "e", "i")).send()
                .assertError(400, "invalid_request", "header Client-Token-Sha256 is required: the SHA-256 of the MCP"
                        + " client's bearer token");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    // Outcomes and resolutions.

    @Test
    void anOutcomeIsFinalAndIdempotent() throws Exception {
        call(ledger, "outcome", "r1", "quote").assertStatus(200);
        String ok = "{\"status\":\"ok\",\"resultSha256\":\"" + RESULT + "\"}";

        Reply first = outcome(ledger, "outcome", "r1", ok).assertStatus(200);
        long before = ledger.receipts();
        Reply again = outcome(ledger, "outcome", "r1", ok).assertStatus(200);

        assertThat(first.receipt().kind().wire()).isEqualTo("call.outcome");
        assertThat(first.receipt().client()).isEqualTo(tokenRef("outcome"));
        assertThat(first.receipt().seq()).isEqualTo(2);
        assertThat(again.text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
        outcome(ledger, "outcome", "r1", "{\"status\":\"error\"}").assertError(409, "outcome_conflict",
                "request r1 already has the final outcome ok with resultSha256 " + RESULT);
    }

    @Test
    void anOutcomeForACallNeverMadeOrRefusedIsRefused() throws Exception {
        call(ledger, "outcome-refused", "r1", "refund").assertStatus(200);
        long before = ledger.receipts();

        outcome(ledger, "never-called", "r1", "{\"status\":\"ok\"}")
                .assertError(404, "call_not_found", "no call with requestId r1 in this client's calls");
        outcome(ledger, "outcome-refused", "r9", "{\"status\":\"ok\"}")
                .assertError(404, "call_not_found", "no call with requestId r9 in this client's calls");
        outcome(ledger, "outcome-refused", "r1", "{\"status\":\"ok\"}")
                .assertError(409, "call_not_admitted", "request r1 was refused, not admitted");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anUnknownCallIsSettledOnlyByAnOperatorsResolution() throws Exception {
        call(ledger, "resolved", "r1", "quote").assertStatus(200);
        outcome(ledger, "resolved", "r1", "{\"status\":\"unknown\"}").assertStatus(200);
        String path = "/v1/calls/r1/resolution?client=" + tokenRef("resolved");
        String resolution = "{\"status\":\"not_run\",\"note\":\"the server log shows no call\"}";

        ledger.edge("POST", path).json(resolution).send().assertStatus(403);
        outcome(ledger, "resolved", "r1", "{\"status\":\"ok\"}").assertError(409, "outcome_conflict",
                "request r1 has an unknown outcome; only an operator's resolution can settle it now");
        Receipt resolved = ledger.operator("POST", path).json(resolution).send().assertStatus(200).receipt();

        assertThat(resolved.kind().wire()).isEqualTo("call.resolved");
        assertThat(resolved.client()).isEqualTo(tokenRef("resolved"));
        assertThat(resolved.body()).isEqualTo(parse(resolution));
        ledger.operator("POST", path).json(resolution).send().assertError(409, "call_not_unknown",
                "request r1 is not unknown: already resolved as not_run");
        ledger.operator("POST", "/v1/calls/r1/resolution").json(resolution).send().assertError(400,
                "invalid_request", "query parameter client is required: the client's tokenRef, 64 lowercase hex"
                        + " characters");
    }

    // Edge incarnations.

    @Test
    void aNewIncarnationMarksThePendingCallsOfTheOldOneUnknown() throws Exception {
        call(ledger, "inc-a", HttpLedger.clientCallJson("inc-a", "r1", "quote", "edge-inc", "old")).assertStatus(200);
        call(ledger, "inc-a", HttpLedger.clientCallJson("inc-a", "r2", "quote", "edge-inc", "old")).assertStatus(200);
        outcome(ledger, "inc-a", "r2", "{\"status\":\"ok\"}").assertStatus(200);
        call(ledger, "inc-b", HttpLedger.clientCallJson("inc-b", "r1", "quote", "edge-inc", "old")).assertStatus(200);
        call(ledger, "inc-b", HttpLedger.clientCallJson("inc-b", "r2", "quote", "edge-inc", "new")).assertStatus(200);
        call(ledger, "inc-b", HttpLedger.clientCallJson("inc-b", "r3", "quote", "edge-other", "old")).assertStatus(200);

        Reply reply = ledger.edge("POST", "/v1/edges/edge-inc/incarnations").json("{\"incarnation\":\"new\"}").send();

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactly("unknown");
        List<Receipt> unknown = new ArrayList<>();
        for (JsonNode r : reply.json().path("unknown")) {
            unknown.add(Receipt.parse(r.toString()));
        }
        assertThat(unknown).extracting(r -> r.client() + " " + r.request() + " " + r.bodyText("status"))
                .containsExactlyInAnyOrder(tokenRef("inc-a") + " r1 unknown", tokenRef("inc-b") + " r1 unknown");
        long before = ledger.receipts();
        assertThat(ledger.edge("POST", "/v1/edges/edge-inc/incarnations").json("{\"incarnation\":\"new\"}").send()
                .assertStatus(200).json()).isEqualTo(parse("{\"unknown\":[]}"));
        assertThat(ledger.receipts()).isEqualTo(before);
        outcome(ledger, "inc-b", "r2", "{\"status\":\"ok\"}").assertStatus(200);
        outcome(ledger, "inc-b", "r3", "{\"status\":\"ok\"}").assertStatus(200);
    }

    @Test
    void anIncarnationWithoutItsNameIs400() throws Exception {
        ledger.edge("POST", "/v1/edges/edge-x/incarnations").json("{}").send()
                .assertError(400, "invalid_request", "field incarnation is required");
        ledger.auditor("POST", "/v1/edges/edge-x/incarnations").json("{\"incarnation\":\"i\"}").send()
                .assertStatus(403);
    }

    // GET /v1/clients/{tokenRef} and investigation.

    @Test
    void aClientObjectIsReadByItsEdgeWithItsTokenAndByAuditors() throws Exception {
        call(ledger, "reader", "r1", "quote").assertStatus(200);
        Reply last = call(ledger, "reader", "r2", "refund").assertStatus(200);
        String path = "/v1/clients/" + tokenRef("reader");

        Reply byEdge = ledger.edge("GET", path).client(clientToken("reader")).send().assertStatus(200);
        Reply byAuditor = ledger.auditor("GET", path).send().assertStatus(200);

        assertThat(byEdge.json()).isEqualTo(parse("{\"tokenRef\":\"" + tokenRef("reader") + "\",\"principal\":"
                + "\"reader\",\"calls\":{\"admitted\":1,\"refused\":1,\"completed\":0,\"unknown\":0,\"pending\":1},"
                + "\"seq\":2,\"head\":\"" + last.receipt().hash() + "\"}"));
        assertThat(byAuditor.text()).isEqualTo(byEdge.text());
        ledger.edge("GET", path).client(clientToken("someone else")).send()
                .assertError(404, "client_not_found", "client not found");
        ledger.edge("GET", path).send().assertStatus(400);
        ledger.auditor("GET", "/v1/clients/" + tokenRef("nobody")).send()
                .assertError(404, "client_not_found", "client not found");
    }

    @Test
    void anEdgeReadsItsOwnClientsReceiptsOnly() throws Exception {
        Receipt receipt = call(ledger, "receipt-reader", "r1", "quote").assertStatus(200).receipt();
        String path = "/v1/receipts/" + receipt.id();

        Reply own = ledger.edge("GET", path).client(clientToken("receipt-reader")).send();
        Reply other = ledger.edge("GET", path).client(clientToken("another client")).send();

        assertThat(own.assertStatus(200).receipt()).isEqualTo(receipt);
        other.assertError(404, "receipt_not_found", "no committed receipt has id " + receipt.id());
    }

    @Test
    void aClientsCallIsInvestigatedByItsClientAndAnAmbiguousRequestIdNamesBothKinds() throws Exception {
        call(ledger, "investigated", "shared-id", "quote").assertStatus(200);
        String session = ledger.initialize("investigated-session");
        ledger.call(session, "investigated-session", "shared-id", "quote").assertStatus(200);

        Reply byClient = ledger.auditor("GET", "/v1/investigate/shared-id?client=" + tokenRef("investigated")).send();
        Reply ambiguous = ledger.auditor("GET", "/v1/investigate/shared-id").send();

        assertThat(byClient.assertStatus(200).json().path("client").asText()).isEqualTo(tokenRef("investigated"));
        assertThat(byClient.json().path("verdict").asText()).isEqualTo("pending");
        assertThat(byClient.json().path("timeline")).hasSize(1);
        ambiguous.assertStatus(400);
        assertThat(ambiguous.errorMessage()).contains("1 session (" + session + ") and in 1 client ("
                + tokenRef("investigated") + ")");
    }

    // Restart and digest.

    @Test
    void clientStreamsSurviveARestartWithTheDigestTheLogAloneGives() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("kept-session");
            own.call(id, "kept-session", "r1", "quote").assertStatus(200);
            call(own, "kept", "r1", "quote").assertStatus(200);
            call(own, "kept", "r2", "refund").assertStatus(200);
            outcome(own, "kept", "r1", "{\"status\":\"error\"}").assertStatus(200);
            call(own, "kept-too", "r1", "discount").assertStatus(200);
            String client = own.auditor("GET", "/v1/clients/" + tokenRef("kept")).send().assertStatus(200).text();
            String digest = own.auditor("GET", "/v1/projections/digest").send().assertStatus(200).text();

            own.restart();

            assertThat(own.auditor("GET", "/v1/clients/" + tokenRef("kept")).send().assertStatus(200).text())
                    .isEqualTo(client);
            assertThat(own.auditor("GET", "/v1/projections/digest").send().assertStatus(200).text()).isEqualTo(digest);
            own.server().engine().integrate();
            MemoryLedgerState replayed = new MemoryLedgerState();
            for (String line : own.entries(100)) {
                LedgerFold.apply(replayed, Receipt.parse(line));
            }
            assertThat(parse(digest).path("digest").asText()).isEqualTo(ProjectionDigest.of(replayed));
            assertThat(replayed.clients()).hasSize(2);
            call(own, "kept", "r3", "quote").assertStatus(200);
            assertThat(own.auditor("GET", "/v1/clients/" + tokenRef("kept")).send().json().path("seq").asLong())
                    .isEqualTo(4);
        }
    }

    /** Only operators resolve; the role check is the route's, as for sessions. */
    @Test
    void anAuditorMayNotCallOrResolve() throws Exception {
        ledger.request("POST", "/v1/calls").as(Role.AUDITOR).client(clientToken("auditor"))
                .json(HttpLedger.clientCallJson("auditor", "r1", "quote", "e", "i")).send().assertStatus(403);
    }
}
