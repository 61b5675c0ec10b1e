package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.IDLE_EXPIRY;
import static io.mcpledger.app.http.HttpLedger.PRICING_POLICY;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.SessionIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The operator's endpoints: policy (contract section 5), capability and principal revocation (section 4), and the
 * session cap of initialize. Tests that activate a policy or restart get a ledger of their own.
 */
class OperatorHttpTest extends SharedLedgerTest {
    /** {@link HttpLedger#PRICING_POLICY} in JCS form, written out by hand: its SHA-256 is the policy hash. */
    private static final String PRICING_JCS = "{\"capabilities\":{\"default\":{\"tools\":["
            + "{\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"quote\",\"ttl\":300},"
            + "{\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"discount\",\"ttl\":300}]}}}";
    private static final String PRICING_HASH = Sha256.hexOfUtf8(PRICING_JCS);
    private static final String PRICING_AS_JSON = """
            { "capabilities": { "default": { "tools": [
                { "tool": "quote", "server": "pricing", "ttl": 300, "operations": ["invoke"] },
                { "ttl": 300, "operations": ["invoke"], "server": "pricing", "tool": "discount" } ] } } }
            """;
    private static final String TOKEN_REVOKED = "the client token has been revoked";

    // PUT and GET /v1/policy.

    @Test
    void aYamlPolicyIsActivatedWithItsHashAndAPolicyActivatedReceipt() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, null, 10_000)) {
            long before = own.receipts();

            Reply reply = own.putPolicy(PRICING_POLICY);

            reply.assertStatus(200);
            assertThat(reply.json().size()).isEqualTo(2);
            assertThat(reply.json().path("policy").asText()).isEqualTo(PRICING_HASH);
            Receipt receipt = reply.receipt();
            assertThat(receipt.kind().wire()).isEqualTo("policy.activated");
            assertThat(receipt.session()).isNull();
            assertThat(receipt.body()).isEqualTo(parse("{\"policy\":\"" + PRICING_HASH + "\"}"));
            assertThat(own.receipts()).isEqualTo(before + 1);
        }
    }

    @Test
    void aJsonPolicyIsActivatedWithTheHashOfItsCanonicalForm() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, null, 10_000)) {
            Reply reply = own.putPolicy(PRICING_AS_JSON);

            reply.assertStatus(200);
            assertThat(reply.json().path("policy").asText()).isEqualTo(PRICING_HASH);
            assertThat(reply.receipt().kind().wire()).isEqualTo("policy.activated");
        }
    }

    @Test
    void anotherPolicyIsActivatedAndServedByGet() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String narrowed = "{\"capabilities\":{\"default\":{\"tools\":[{\"operations\":[\"invoke\"],"
                    + "\"server\":\"pricing\",\"tool\":\"discount\",\"ttl\":60}]}}}";
            long before = own.receipts();

            own.putPolicy(narrowed).assertStatus(200);

            assertThat(own.receipts()).isEqualTo(before + 1);
            assertThat(own.auditor("GET", "/v1/policy").send().assertStatus(200).json()).isEqualTo(parse(
                    "{\"policy\":\"" + Sha256.hexOfUtf8(narrowed) + "\",\"document\":" + narrowed + "}"));
        }
    }

    @Test
    void theActivePolicyAgainAnswersItsHashWithoutAReceipt() throws Exception {
        long before = ledger.receipts();

        Reply reply = ledger.putPolicy(PRICING_POLICY);

        reply.assertStatus(200);
        assertThat(reply.json()).isEqualTo(parse("{\"policy\":\"" + PRICING_HASH + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void theActivePolicyWrittenAsJsonAgainAnswersItsHashWithoutAReceipt() throws Exception {
        long before = ledger.receipts();

        Reply reply = ledger.putPolicy(PRICING_AS_JSON);

        assertThat(reply.assertStatus(200).json()).isEqualTo(parse("{\"policy\":\"" + PRICING_HASH + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void getPolicyAnswersTheActiveHashAndDocument() throws Exception {
        Reply reply = ledger.auditor("GET", "/v1/policy").send();

        assertThat(reply.assertStatus(200).json()).isEqualTo(parse("{\"policy\":\"" + PRICING_HASH + "\",\"document\":"
                + PRICING_JCS + "}"));
    }

    @Test
    void getPolicyWithNoPolicyEverActivatedIs404NoPolicy() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, null, 10_000)) {
            own.auditor("GET", "/v1/policy").send().assertError(404, "no_policy",
                    "no policy has been activated; PUT /v1/policy or start with --policy FILE");
        }
    }

    @Test
    void unparseableYamlIs400InvalidJsonAndAppendsNothing() throws Exception {
        long before = ledger.receipts();

        ledger.putPolicy("capabilities: [unclosed").assertError(400, "invalid_json",
                "policy: not valid YAML at line 1, column 24: expected ',' or ']', but got <stream end>");

        assertThat(ledger.receipts()).isEqualTo(before);
        assertThat(ledger.auditor("GET", "/v1/policy").send().json().path("policy").asText()).isEqualTo(PRICING_HASH);
    }

    @Test
    void unparseableJsonIs400InvalidJson() throws Exception {
        ledger.putPolicy("{\"capabilities\": {").assertError(400, "invalid_json",
                "policy: not valid JSON at line 1, column 19: Unexpected end-of-input: expected close marker for Object");
    }

    @Test
    void anEmptyPolicyBodyIs400InvalidJson() throws Exception {
        ledger.operator("PUT", "/v1/policy").send().assertError(400, "invalid_json",
                "the body is empty; send the policy as YAML or JSON");
    }

    @Test
    void aTtlThatIsNotAnIntegerIs400InvalidRequestAndAppendsNothing() throws Exception {
        long before = ledger.receipts();

        ledger.putPolicy("capabilities: {default: {tools: [{server: pricing, tool: quote, operations: [invoke],"
                + " ttl: 300s}]}}").assertError(400, "invalid_request",
                "policy: 'capabilities.default.tools[0].ttl' must be an integer number of seconds from 1 to 316224000");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anUnknownFieldInAPolicyIs400InvalidRequest() throws Exception {
        ledger.putPolicy("capabilities: {default: {tools: [{server: pricing, tool: quote, operations: [invoke],"
                + " ttl: 300, limit: 5}]}}").assertError(400, "invalid_request",
                "policy: 'capabilities.default.tools[0]' has an unknown field 'limit'");
    }

    @Test
    void aPolicyWithoutCapabilitiesIs400InvalidRequest() throws Exception {
        ledger.putPolicy("tools: []").assertError(400, "invalid_request",
                "policy: 'policy' has an unknown field 'tools'");
    }

    // Capability revocation.

    @Test
    void revokingASessionAnswersItsCapabilityIdRevokedAndTheReceipt() throws Exception {
        Reply initialized = ledger.initialize("revoke-session", HttpLedger.initializeJson("revoke-session"));
        String id = initialized.session().path("id").asText();
        String capability = initialized.session().path("capability").path("id").asText();
        long before = ledger.receipts();

        Reply reply = ledger.operator("POST", "/v1/sessions/" + id + "/revoke").send();

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("capabilityId", "revoked", "receipt");
        assertThat(reply.json().path("capabilityId").asText()).isEqualTo(capability);
        assertThat(reply.json().path("revoked").isBoolean()).isTrue();
        assertThat(reply.json().path("revoked").asBoolean()).isTrue();
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("capability.revoked");
        assertThat(receipt.session()).isEqualTo(id);
        assertThat(receipt.seq()).isEqualTo(2);
        assertThat(receipt.body()).isEqualTo(parse("{\"capability\":\"" + capability + "\"}"));
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(ledger.auditor("GET", "/v1/sessions/" + id).send().json().path("capability").path("revoked")
                .asBoolean()).isTrue();
    }

    @Test
    void revokingACapabilityByItsIdAnswersTheSame() throws Exception {
        Reply initialized = ledger.initialize("revoke-capability", HttpLedger.initializeJson("revoke-capability"));
        String id = initialized.session().path("id").asText();
        String capability = initialized.session().path("capability").path("id").asText();

        Reply reply = ledger.operator("POST", "/v1/capabilities/" + capability + "/revoke").send();

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("capabilityId", "revoked", "receipt");
        assertThat(reply.json().path("capabilityId").asText()).isEqualTo(capability);
        assertThat(reply.json().path("revoked").asBoolean()).isTrue();
        assertThat(reply.receipt().kind().wire()).isEqualTo("capability.revoked");
        assertThat(reply.receipt().session()).isEqualTo(id);
    }

    @Test
    void revokingACapabilityTwiceRepeatsTheFirstReceiptAndAppendsNothing() throws Exception {
        String id = ledger.initialize("revoke-twice");
        Reply first = ledger.operator("POST", "/v1/sessions/" + id + "/revoke").send();
        long before = ledger.receipts();

        Reply again = ledger.operator("POST", "/v1/sessions/" + id + "/revoke").send();

        assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void revokingACapabilityThatAResumeReplacedRevokesTheSession() throws Exception {
        Reply initialized = ledger.initialize("revoke-old", HttpLedger.initializeJson("revoke-old"));
        String id = initialized.session().path("id").asText();
        String old = initialized.session().path("capability").path("id").asText();
        ledger.resume(id, "revoke-old", null).assertStatus(200);

        Reply reply = ledger.operator("POST", "/v1/capabilities/" + old + "/revoke").send();

        assertThat(reply.assertStatus(200).json().path("capabilityId").asText()).isEqualTo(old);
        assertThat(ledger.call(id, "revoke-old", "r1", "quote").json().path("reason").path("code").asText())
                .isEqualTo("capability_revoked");
    }

    @Test
    void revokingACapabilityNeverIssuedIs404CapabilityNotFoundAndAppendsNothing() throws Exception {
        long before = ledger.receipts();

        ledger.operator("POST", "/v1/capabilities/cap-never-issued/revoke").send().assertError(404,
                "capability_not_found", "no session was ever issued capability cap-never-issued");

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void revokingASessionNeverIssuedIs404SessionNotFound() throws Exception {
        String neverIssued = SessionIds.issue(clientToken("never"), new byte[16]);

        ledger.operator("POST", "/v1/sessions/" + neverIssued + "/revoke").send().assertError(404,
                "session_not_found", "session not found");
    }

    // Principal revocation.

    @Test
    void revokingAPrincipalAnswersAPrincipalRevokedReceiptNamingOnlyTheTokenRef() throws Exception {
        String token = clientToken("principal");
        long before = ledger.receipts();

        Reply reply = ledger.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + token + "\"}").send();

        reply.assertStatus(200);
        assertThat(reply.json().size()).isEqualTo(1);
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("principal.revoked");
        assertThat(receipt.body()).isEqualTo(parse("{\"tokenRef\":\"" + tokenRef(token) + "\"}"));
        assertThat(reply.rawReceipt()).doesNotContain(token);
        assertThat(ledger.receipts()).isEqualTo(before + 1);
    }

    @Test
    void revokingAPrincipalTwiceRepeatsTheFirstReceiptAndAppendsNothing() throws Exception {
        String body = "{\"tokenSha256\":\"" + clientToken("principal-twice") + "\"}";
        Reply first = ledger.operator("POST", "/v1/principals/revoke").json(body).send();
        long before = ledger.receipts();

        Reply again = ledger.operator("POST", "/v1/principals/revoke").json(body).send();

        assertThat(again.assertStatus(200).text()).isEqualTo(first.text());
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void initializeWithARevokedTokenIs403TokenRevokedAndAppendsNothing() throws Exception {
        ledger.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + clientToken("banned") + "\"}")
                .send().assertStatus(200);
        long before = ledger.receipts();

        ledger.initialize("banned", HttpLedger.initializeJson("banned")).assertError(403, "token_revoked", TOKEN_REVOKED);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void revocationsHoldAfterARestart() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String revokedSession = own.initialize("cap-holder");
            String capability = own.operator("POST", "/v1/sessions/" + revokedSession + "/revoke").send()
                    .assertStatus(200).json().path("capabilityId").asText();
            String bannedSession = own.initialize("token-holder");
            own.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + clientToken("token-holder")
                    + "\"}").send().assertStatus(200);

            own.restart();

            Reply call = own.call(revokedSession, "cap-holder", "r1", "quote");
            assertThat(call.assertStatus(200).json().path("reason")).isEqualTo(parse("{\"code\":\"capability_revoked\","
                    + "\"message\":\"capability has been revoked: " + capability + "\"}"));
            own.resume(revokedSession, "cap-holder", null).assertStatus(200);
            assertThat(own.call(revokedSession, "cap-holder", "r2", "quote").json().path("reason").path("code").asText())
                    .isEqualTo("capability_revoked");
            own.resume(bannedSession, "token-holder", null).assertError(403, "token_revoked", TOKEN_REVOKED);
            own.initialize("token-holder", HttpLedger.initializeJson("token-holder"))
                    .assertError(403, "token_revoked", TOKEN_REVOKED);
        }
    }

    // The session cap.

    @Test
    void initializeBeyondMaxActiveSessionsIs503SessionLimitWithRetryAfterAndAppendsNothing() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, PRICING_POLICY, 2)) {
            own.initialize("first");
            own.initialize("second");
            long before = own.receipts();

            Reply reply = own.initialize("third", HttpLedger.initializeJson("third"));

            reply.assertError(503, "session_limit", "the ledger already has 2 active sessions (--max-active-sessions);"
                    + " retry after sessions end or expire");
            assertThat(reply.header("Retry-After")).isEqualTo("1");
            assertThat(own.receipts()).isEqualTo(before);
        }
    }

    @Test
    void aDeletedSessionFreesItsPlaceUnderTheCap() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, PRICING_POLICY, 2)) {
            String first = own.initialize("first");
            own.initialize("second");
            own.edge("DELETE", "/v1/sessions/" + first).client(clientToken("first")).send().assertStatus(200);

            own.initialize("third", HttpLedger.initializeJson("third")).assertStatus(201);
        }
    }

    @Test
    void aSessionExpiredByTheReaperFreesItsPlaceUnderTheCap() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState, PRICING_POLICY, 2)) {
            String first = own.initialize("first");
            own.clock.advance(IDLE_EXPIRY.plusMillis(1));
            own.initialize("second");
            own.clock.letReaperSeeNow();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (own.kindsOf(first).size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }

            own.initialize("third", HttpLedger.initializeJson("third")).assertStatus(201);
        }
    }

    private static String tokenRef(String tokenSha256) {
        return Sha256.hex("mcp-ledger-token-ref\n".getBytes(StandardCharsets.US_ASCII), Hex.decode(tokenSha256));
    }
}
