package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.IDLE_EXPIRY;
import static io.mcpledger.app.http.HttpLedger.args;
import static io.mcpledger.app.http.HttpLedger.callJson;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.SessionIds;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Call admission (contract section 4): the session-level checks, the admission table in its first-match-wins order,
 * and requestId idempotency. Tests share one ledger, each with its own client, unless they change the policy.
 */
class AdmissionHttpTest extends SharedLedgerTest {
    private static final String NOT_FOUND = "session not found";
    private static final String EXPIRED = "MCP session expired and must be re-initialized";
    private static final String REVOKED = "the client token has been revoked";
    private static final String CONFLICT = "requestId r1 was already used in this session with a different server, tool,"
            + " operation or argumentsSha256";
    private static final String DISCOUNT_ONLY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;

    private static final String WITH_REFUND = HttpLedger.PRICING_POLICY
            + "      - {server: pricing, tool: refund, operations: [invoke], ttl: 300}\n";

    // The admission table.

    @Test
    void aCallInScopeIsAdmittedWithCallIdCapabilityIdAndReceipt() throws Exception {
        Reply initialized = ledger.initialize("admitted", HttpLedger.initializeJson("admitted"));
        String id = initialized.session().path("id").asText();
        String capability = initialized.session().path("capability").path("id").asText();
        String policy = ledger.operator("GET", "/v1/policy").send().json().path("policy").asText();
        long before = ledger.receipts();

        Reply reply = ledger.call(id, "admitted", "r1", "quote");

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("decision", "callId", "capabilityId", "receipt");
        assertThat(reply.json().path("decision").asText()).isEqualTo("admitted");
        assertThat(reply.json().path("callId").asText()).isEqualTo("r1");
        assertThat(reply.json().path("capabilityId").asText()).isEqualTo(capability);
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("call.admitted");
        assertThat(receipt.session()).isEqualTo(id);
        assertThat(receipt.request()).isEqualTo("r1");
        assertThat(receipt.seq()).isEqualTo(2);
        assertThat(receipt.body()).isEqualTo(parse("{\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\","
                + "\"argumentsSha256\":\"" + args("r1") + "\",\"capability\":\"" + capability + "\",\"policy\":\""
                + policy + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
    }

    /** Contract section 4: the JSON-RPC id is recorded as the client sent it, an integer as an integer. */
    @Test
    void aJsonrpcIdIsRecordedWithItsJsonType() throws Exception {
        String id = ledger.initialize("jsonrpc-ids");
        String[][] cases = {{"7", "7"}, {"-9007199254740991", "-9007199254740991"}, {"0", "0"}, {"\"7\"", "\"7\""}};
        for (int i = 0; i < cases.length; i++) {
            String requestId = "j" + i;
            String body = "{\"requestId\":\"" + requestId + "\",\"server\":\"pricing\",\"tool\":\"quote\","
                    + "\"operation\":\"invoke\",\"argumentsSha256\":\"" + args(requestId) + "\",\"jsonrpcId\":"
                    + cases[i][0] + "}";
            Reply reply = ledger.call(id, "jsonrpc-ids", body).assertStatus(200);
            assertThat(reply.json().path("decision").asText()).isEqualTo("admitted");
            assertThat(reply.receipt().body().get("jsonrpcId")).as(cases[i][0]).isEqualTo(parse(cases[i][1]));
            assertThat(reply.rawReceipt()).contains("\"jsonrpcId\":" + cases[i][1] + ",");
            // The same request again answers the same receipt.
            assertThat(ledger.call(id, "jsonrpc-ids", body).assertStatus(200).rawReceipt()).isEqualTo(reply.rawReceipt());
        }
    }

    @Test
    void aToolWithoutAGrantIsRefusedNotInScope() throws Exception {
        String id = ledger.initialize("no-grant");
        long before = ledger.receipts();

        Reply reply = ledger.call(id, "no-grant", "r1", "refund");

        assertRefused(reply, "not_in_scope", "requested tool refund on server pricing is not in capability scope");
        assertThat(reply.receipt().kind().wire()).isEqualTo("call.refused");
        assertThat(reply.receipt().body().path("reason")).isEqualTo(reply.json().path("reason"));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
    }

    @Test
    void aServerWithoutAGrantIsRefusedNotInScope() throws Exception {
        String id = ledger.initialize("no-server");

        Reply reply = ledger.call(id, "no-server", callJson("r1", "billing", "quote", args("r1")));

        assertRefused(reply, "not_in_scope", "requested tool quote on server billing is not in capability scope");
    }

    @Test
    void anOperationWithoutAGrantIsRefusedNotInScope() throws Exception {
        String id = ledger.initialize("no-operation");

        Reply reply = ledger.call(id, "no-operation", "{\"requestId\":\"r1\",\"server\":\"pricing\",\"tool\":\"quote\","
                + "\"operation\":\"delete\",\"argumentsSha256\":\"" + args("r1") + "\"}");

        assertRefused(reply, "not_in_scope", "requested tool quote on server pricing is not in capability scope");
    }

    @Test
    void aCallUnderARevokedCapabilityIsRefusedCapabilityRevoked() throws Exception {
        String id = ledger.initialize("cap-revoked");
        String capability = revokeCapability(id);

        Reply reply = ledger.call(id, "cap-revoked", "r1", "quote");

        assertRefused(reply, "capability_revoked", "capability has been revoked: " + capability);
    }

    @Test
    void aRevokedCapabilityWinsOverNotInScope() throws Exception {
        String id = ledger.initialize("revoked-first");
        String capability = revokeCapability(id);

        Reply reply = ledger.call(id, "revoked-first", "r1", "refund");

        assertRefused(reply, "capability_revoked", "capability has been revoked: " + capability);
    }

    @Test
    void aCallAfterTheGrantsNotAfterIsRefusedCapabilityExpired() throws Exception {
        String id = ledger.initialize("grant-expired");
        Instant notAfter = ledger.clock.instant().plusSeconds(300);
        ledger.clock.advance(Duration.ofSeconds(301));

        Reply reply = ledger.call(id, "grant-expired", "r1", "quote");

        assertRefused(reply, "capability_expired", "capability grant for tool quote on server pricing expired at "
                + Timestamps.format(notAfter) + "; resume the session to renew it");
    }

    @Test
    void aCallExactlyAtTheGrantsNotAfterIsAdmitted() throws Exception {
        String id = ledger.initialize("grant-boundary");
        ledger.clock.advance(Duration.ofSeconds(300));

        Reply reply = ledger.call(id, "grant-boundary", "r1", "quote");

        assertThat(reply.assertStatus(200).json().path("decision").asText()).isEqualTo("admitted");
    }

    @Test
    void notInScopeWinsOverAnExpiredGrant() throws Exception {
        String id = ledger.initialize("scope-first");
        ledger.clock.advance(Duration.ofSeconds(301));

        Reply reply = ledger.call(id, "scope-first", "r1", "refund");

        assertRefused(reply, "not_in_scope", "requested tool refund on server pricing is not in capability scope");
    }

    @Test
    void aNarrowedPolicyRefusesTheVeryNextCallNotInScope() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("narrowed");
            own.call(id, "narrowed", "before", "quote").assertStatus(200);

            own.putPolicy(DISCOUNT_ONLY).assertStatus(200);

            assertRefused(own.call(id, "narrowed", "after", "quote"), "not_in_scope",
                    "requested tool quote on server pricing is not in capability scope");
            assertThat(own.call(id, "narrowed", "discount", "discount").json().path("decision").asText())
                    .isEqualTo("admitted");
        }
    }

    @Test
    void aWidenedPolicyGrantsNothingUntilTheSessionResumes() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("widened");
            own.putPolicy(WITH_REFUND).assertStatus(200);

            assertRefused(own.call(id, "widened", "before-resume", "refund"), "not_in_scope",
                    "requested tool refund on server pricing is not in capability scope");
            own.resume(id, "widened", null).assertStatus(200);
            assertThat(own.call(id, "widened", "after-resume", "refund").json().path("decision").asText())
                    .isEqualTo("admitted");
        }
    }

    @Test
    void aCapabilityRevocationRefusesTheVeryNextCall() throws Exception {
        String id = ledger.initialize("next-call");
        ledger.call(id, "next-call", "before", "quote").assertStatus(200);

        String capability = revokeCapability(id);

        assertRefused(ledger.call(id, "next-call", "after", "quote"), "capability_revoked",
                "capability has been revoked: " + capability);
    }

    @Test
    void withNoPolicyActiveEveryCallIsRefusedNotInScope() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, null, 10_000)) {
            String id = own.initialize("no-policy");

            assertRefused(own.call(id, "no-policy", "r1", "quote"), "not_in_scope",
                    "requested tool quote on server pricing is not in capability scope");
        }
    }

    // Session-level checks.

    @Test
    void aCallOnAnIdNeverIssuedIs404SessionNotFoundAndAppendsNothing() throws Exception {
        String neverIssued = SessionIds.issue(clientToken("never"), new byte[16]);
        long before = ledger.receipts();

        ledger.call(neverIssued, "never", "r1", "quote").assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aCallWithAForeignTokenIs404SessionNotFoundAndAppendsNothing() throws Exception {
        String id = ledger.initialize("call-owner");
        long before = ledger.receipts();

        ledger.call(id, "mallory", "r1", "quote").assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
        assertThat(ledger.call(id, "call-owner", "r1", "quote").json().path("decision").asText()).isEqualTo("admitted");
    }

    @Test
    void aCallOnADeletedSessionIs404SessionDeletedAndAppendsNothing() throws Exception {
        String id = ledger.initialize("call-deleted");
        delete(id, "call-deleted");
        long before = ledger.receipts();

        ledger.call(id, "call-deleted", "r1", "quote").assertError(404, "session_deleted", "session has been deleted");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aCallOnAnIdleSessionIs410AndAppendsSessionExpiredThenCallRefused() throws Exception {
        String id = ledger.initialize("call-idle");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        long before = ledger.receipts();

        Receipt refused = ledger.call(id, "call-idle", "r1", "quote").assertErrorWithReceipt(410, "session_expired", EXPIRED);

        assertThat(refused.kind().wire()).isEqualTo("call.refused");
        assertThat(refused.request()).isEqualTo("r1");
        assertThat(refused.body().path("reason")).isEqualTo(parse("{\"code\":\"session_expired\",\"message\":\""
                + EXPIRED + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before + 2);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.expired", "call.refused");
    }

    @Test
    void aNewCallOnAnExpiredSessionIs410AndAppendsOnlyCallRefused() throws Exception {
        String id = ledger.initialize("call-expired");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        ledger.call(id, "call-expired", "r1", "quote").assertStatus(410);
        long before = ledger.receipts();

        Receipt refused = ledger.call(id, "call-expired", "r2", "quote").assertErrorWithReceipt(410, "session_expired",
                EXPIRED);

        assertThat(refused.request()).isEqualTo("r2");
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.expired", "call.refused",
                "call.refused");
    }

    @Test
    void theSameCallAgainOnAnExpiredSessionRepeatsItsReceiptAndAppendsNothing() throws Exception {
        String id = ledger.initialize("call-expired-again");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        Reply first = ledger.call(id, "call-expired-again", "r1", "quote");
        long before = ledger.receipts();

        Reply again = ledger.call(id, "call-expired-again", "r1", "quote");

        again.assertErrorWithReceipt(410, "session_expired", EXPIRED);
        assertThat(again.text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aCallWithARevokedTokenIs403AndAppendsCallRefused() throws Exception {
        String id = ledger.initialize("call-token-revoked");
        ledger.operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + clientToken("call-token-revoked") + "\"}").send().assertStatus(200);
        long before = ledger.receipts();

        Receipt refused = ledger.call(id, "call-token-revoked", "r1", "quote").assertErrorWithReceipt(403,
                "token_revoked", REVOKED);

        assertThat(refused.kind().wire()).isEqualTo("call.refused");
        assertThat(refused.request()).isEqualTo("r1");
        assertThat(refused.body().path("reason")).isEqualTo(parse("{\"code\":\"token_revoked\",\"message\":\""
                + REVOKED + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
    }

    // requestId idempotency.

    @Test
    void theSameAdmittedRequestAgainAnswersTheSameBytesAndAppendsNothing() throws Exception {
        String id = ledger.initialize("idempotent");
        Reply first = ledger.call(id, "idempotent", "r1", "quote");
        long before = ledger.receipts();

        Reply again = ledger.call(id, "idempotent", "r1", "quote");

        again.assertStatus(200);
        assertThat(again.rawReceipt()).isEqualTo(first.rawReceipt());
        assertThat(again.text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRefusedRequestAgainAnswersTheSameBytesAndAppendsNothing() throws Exception {
        String id = ledger.initialize("idempotent-refused");
        Reply first = ledger.call(id, "idempotent-refused", "r1", "refund");
        long before = ledger.receipts();

        Reply again = ledger.call(id, "idempotent-refused", "r1", "refund");

        again.assertStatus(200);
        assertThat(again.text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRequestAfterARevocationStillAnswersItsAdmission() throws Exception {
        String id = ledger.initialize("idempotent-revoked");
        Reply first = ledger.call(id, "idempotent-revoked", "r1", "quote");
        revokeCapability(id);
        long before = ledger.receipts();

        Reply again = ledger.call(id, "idempotent-revoked", "r1", "quote");

        assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRequestAfterThePolicyNarrowedStillAnswersItsAdmission() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("idempotent-policy");
            Reply first = own.call(id, "idempotent-policy", "r1", "quote");
            own.putPolicy(DISCOUNT_ONLY).assertStatus(200);
            long before = own.receipts();

            Reply again = own.call(id, "idempotent-policy", "r1", "quote");

            assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
            assertThat(own.receipts()).isEqualTo(before);
        }
    }

    @Test
    void theSameRequestIdWithOtherArgumentsIs409AndAppendsNothing() throws Exception {
        String id = ledger.initialize("conflict-args");
        ledger.call(id, "conflict-args", "r1", "quote").assertStatus(200);
        long before = ledger.receipts();

        ledger.call(id, "conflict-args", callJson("r1", "pricing", "quote", args("other")))
                .assertError(409, "request_id_conflict", CONFLICT);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRequestIdWithAnotherToolIs409() throws Exception {
        String id = ledger.initialize("conflict-tool");
        ledger.call(id, "conflict-tool", "r1", "quote").assertStatus(200);

        ledger.call(id, "conflict-tool", callJson("r1", "pricing", "discount", args("r1")))
                .assertError(409, "request_id_conflict", CONFLICT);
    }

    @Test
    void theSameRequestIdWithAnotherServerIs409() throws Exception {
        String id = ledger.initialize("conflict-server");
        ledger.call(id, "conflict-server", "r1", "quote").assertStatus(200);

        ledger.call(id, "conflict-server", callJson("r1", "billing", "quote", args("r1")))
                .assertError(409, "request_id_conflict", CONFLICT);
    }

    @Test
    void theSameRequestIdAfterARefusalWithOtherArgumentsIs409() throws Exception {
        String id = ledger.initialize("conflict-refused");
        ledger.call(id, "conflict-refused", "r1", "refund").assertStatus(200);

        ledger.call(id, "conflict-refused", callJson("r1", "pricing", "refund", args("other")))
                .assertError(409, "request_id_conflict", CONFLICT);
    }

    @Test
    void aReplayAfterDeleteIs404SessionDeleted() throws Exception {
        String id = ledger.initialize("replay-deleted");
        ledger.call(id, "replay-deleted", "r1", "quote").assertStatus(200);
        delete(id, "replay-deleted");
        long before = ledger.receipts();

        ledger.call(id, "replay-deleted", "r1", "quote").assertError(404, "session_deleted", "session has been deleted");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theSameRequestIdInAnotherSessionIsAnotherCall() throws Exception {
        String first = ledger.initialize("two-sessions-a");
        String second = ledger.initialize("two-sessions-b");
        ledger.call(first, "two-sessions-a", "r1", "quote").assertStatus(200);

        Reply reply = ledger.call(second, "two-sessions-b", callJson("r1", "pricing", "discount", args("b")));

        assertThat(reply.assertStatus(200).json().path("decision").asText()).isEqualTo("admitted");
        assertThat(reply.receipt().session()).isEqualTo(second);
    }

    private static void assertRefused(Reply reply, String code, String message) {
        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("decision", "reason", "receipt");
        assertThat(reply.json().path("decision").asText()).isEqualTo("refused");
        assertThat(reply.json().path("reason")).isEqualTo(parse("{\"code\":\"" + code + "\",\"message\":\"" + message
                + "\"}"));
        assertThat(reply.receipt().kind().wire()).isEqualTo("call.refused");
        assertThat(reply.receipt().body().path("reason")).isEqualTo(reply.json().path("reason"));
    }

    private static String revokeCapability(String id) throws Exception {
        return ledger.operator("POST", "/v1/sessions/" + id + "/revoke").send().assertStatus(200)
                .json().path("capabilityId").asText();
    }

    private static void delete(String id, String client) throws Exception {
        ledger.edge("DELETE", "/v1/sessions/" + id).client(clientToken(client)).send().assertStatus(200);
    }
}
