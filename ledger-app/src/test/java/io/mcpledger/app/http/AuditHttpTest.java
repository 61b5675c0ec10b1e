package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.IDLE_EXPIRY;
import static io.mcpledger.app.http.HttpLedger.args;
import static io.mcpledger.app.http.HttpLedger.callJson;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.Timestamps;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What edges and auditors read (contract sections 4, 8 and 10): receipts by id, byte for byte; the session object and
 * its listing; investigations; the projection digest; the log's public key.
 */
class AuditHttpTest extends SharedLedgerTest {
    /** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32-byte key follows it. */
    private static final String ED25519_SPKI_PREFIX = "302a300506032b6570032100";

    // GET /v1/receipts/{id}.

    @Test
    void aSessionReceiptIsServedByIdWithTheBytesItsAnswerCarried() throws Exception {
        Reply initialized = ledger.initialize("by-id", HttpLedger.initializeJson("by-id"));
        String id = initialized.session().path("id").asText();
        Reply admitted = ledger.call(id, "by-id", "r1", "quote");

        for (Reply answer : List.of(initialized, admitted)) {
            Reply served = ledger.auditor("GET", "/v1/receipts/" + answer.receipt().id()).send();

            assertThat(served.assertStatus(200).rawReceipt()).isEqualTo(answer.rawReceipt());
        }
    }

    @Test
    void aLedgerWideReceiptIsServedByIdWithTheBytesItsAnswerCarried() throws Exception {
        Reply revoked = ledger.operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + clientToken("served-revocation") + "\"}").send().assertStatus(200);

        Reply served = ledger.auditor("GET", "/v1/receipts/" + revoked.receipt().id()).send();

        assertThat(served.assertStatus(200).rawReceipt()).isEqualTo(revoked.rawReceipt());
    }

    @Test
    void aReceiptAnsweredBesideAnErrorIsServedById() throws Exception {
        String id = ledger.initialize("beside-error");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        Reply refused = ledger.call(id, "beside-error", "r1", "quote").assertStatus(410);

        Reply served = ledger.auditor("GET", "/v1/receipts/" + refused.receipt().id()).send();

        assertThat(served.assertStatus(200).rawReceipt()).isEqualTo(refused.rawReceipt());
    }

    /** Contract section 8: an edge reads the receipts of its own client's sessions only; others are 404. */
    @Test
    void anEdgeReadsOnlyItsOwnClientsReceipts() throws Exception {
        Reply mine = ledger.initialize("receipts-mine", HttpLedger.initializeJson("receipts-mine"));
        Reply theirs = ledger.initialize("receipts-theirs", HttpLedger.initializeJson("receipts-theirs"));
        ledger.integrate();
        String policyReceipt = ledger.auditor("GET", "/v1/log/entries?start=0&limit=1").send().text();
        String policyId = HttpLedger.parse(policyReceipt.strip()).path("id").asText();
        String token = HttpLedger.clientToken("receipts-mine");

        for (String path : new String[] {"", "/proof"}) {
            ledger.edge("GET", "/v1/receipts/" + mine.receipt().id() + path).client(token).send().assertStatus(200);
            ledger.edge("GET", "/v1/receipts/" + theirs.receipt().id() + path).client(token).send()
                    .assertError(404, "receipt_not_found", "no committed receipt has id " + theirs.receipt().id());
            ledger.edge("GET", "/v1/receipts/" + policyId + path).client(token).send()
                    .assertError(404, "receipt_not_found", "no committed receipt has id " + policyId);
            assertThat(ledger.edge("GET", "/v1/receipts/" + mine.receipt().id() + path).send()
                    .assertStatus(400).errorMessage()).contains("Client-Token-Sha256");
            ledger.auditor("GET", "/v1/receipts/" + theirs.receipt().id() + path).send().assertStatus(200);
            ledger.operator("GET", "/v1/receipts/" + policyId + path).send().assertStatus(200);
        }
    }

    /** Contract section 4: an edge lists its own client's sessions, and must say which client that is. */
    @Test
    void anEdgeListsOnlyItsOwnClientsSessions() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                mine.add(own.initialize("lister"));
                own.initialize("someone-else-" + i);
            }
            String ended = own.initialize("lister");
            own.edge("DELETE", "/v1/sessions/" + ended).client(HttpLedger.clientToken("lister")).send().assertStatus(200);
            String token = HttpLedger.clientToken("lister");

            for (String state : new String[] {"state=active&", ""}) {
                List<String> listed = new ArrayList<>();
                String after = null;
                do {
                    Reply page = own.edge("GET", "/v1/sessions?" + state + "limit=2"
                            + (after == null ? "" : "&after=" + after)).client(token).send().assertStatus(200);
                    page.json().path("sessions").forEach(s -> listed.add(s.path("id").asText()));
                    after = page.json().path("next").isMissingNode() ? null : page.json().path("next").asText();
                } while (after != null);
                List<String> expected = new ArrayList<>(mine);
                if (state.isEmpty()) {
                    expected.add(ended);
                }
                assertThat(listed).as(state).containsExactlyElementsOf(expected.stream().sorted().toList());
            }
            own.edge("GET", "/v1/sessions?state=active").send().assertError(400, "invalid_request",
                    "header Client-Token-Sha256 is required: the SHA-256 of the MCP client's bearer token");
            assertThat(own.auditor("GET", "/v1/sessions?limit=100").send().assertStatus(200).json().path("sessions")
                    .size()).isEqualTo(11);
            assertThat(own.auditor("GET", "/v1/sessions").client(token).send().assertStatus(200).json()
                    .path("sessions").size()).isEqualTo(6);
        }
    }

    @Test
    void anEdgeMayReadAReceiptById() throws Exception {
        Reply initialized = ledger.initialize("edge-reads", HttpLedger.initializeJson("edge-reads"));

        Reply served = ledger.edge("GET", "/v1/receipts/" + initialized.receipt().id())
                .client(HttpLedger.clientToken("edge-reads")).send();

        assertThat(served.assertStatus(200).rawReceipt()).isEqualTo(initialized.rawReceipt());
    }

    @Test
    void aReceiptServedByIdVerifiesWithTheLogsPublicKey() throws Exception {
        Reply initialized = ledger.initialize("verifies", HttpLedger.initializeJson("verifies"));
        Reply served = ledger.auditor("GET", "/v1/receipts/" + initialized.receipt().id()).send();
        JsonNode key = ledger.request("GET", "/v1/log/public-key").send().json();
        Receipt receipt = served.receipt();

        assertThat(receipt.keyId()).isEqualTo(key.path("keyId").asText());
        Signature ed25519 = Signature.getInstance("Ed25519");
        ed25519.initVerify(publicKey(key.path("pem").asText()));
        ed25519.update(("mcp-ledger-receipt-v1\n" + withoutSig(served.rawReceipt())).getBytes(StandardCharsets.UTF_8));
        assertThat(ed25519.verify(Base64.getDecoder().decode(receipt.sig()))).isTrue();
    }

    @Test
    void aReceiptIdNeverCommittedIs404ReceiptNotFound() throws Exception {
        ledger.auditor("GET", "/v1/receipts/rcpt-never-committed").send().assertError(404, "receipt_not_found",
                "no committed receipt has id rcpt-never-committed");
    }

    // GET /v1/sessions/{id} and the listing.

    @Test
    void aSessionIsServedAsTheSessionObject() throws Exception {
        Instant at = ledger.clock.instant();
        Reply initialized = ledger.initialize("object", HttpLedger.initializeJson("object"));
        String id = initialized.session().path("id").asText();
        String capability = initialized.session().path("capability").path("id").asText();
        Reply admitted = ledger.call(id, "object", "r1", "quote");
        String created = Timestamps.format(at);
        String notAfter = Timestamps.format(at.plusSeconds(300));

        Reply reply = ledger.auditor("GET", "/v1/sessions/" + id).send();

        assertThat(reply.assertStatus(200).json()).isEqualTo(parse("{\"id\":\"" + id + "\",\"state\":\"active\","
                + "\"principal\":\"object\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\","
                + "\"createdAt\":\"" + created + "\",\"lastActivityAt\":\"" + created + "\",\"expiresAt\":\""
                + Timestamps.format(at.plus(IDLE_EXPIRY)) + "\",\"resumes\":0,\"capability\":{\"id\":\"" + capability
                + "\",\"revoked\":false,\"grants\":[{\"server\":\"pricing\",\"tool\":\"quote\",\"operations\":[\"invoke\"],"
                + "\"notAfter\":\"" + notAfter + "\"},{\"server\":\"pricing\",\"tool\":\"discount\","
                + "\"operations\":[\"invoke\"],\"notAfter\":\"" + notAfter + "\"}]},\"calls\":{\"admitted\":1,"
                + "\"refused\":0,\"completed\":0,\"unknown\":0,\"pending\":1},\"seq\":2,\"head\":\""
                + Sha256.hexOfUtf8(admitted.rawReceipt()) + "\"}"));
    }

    @Test
    void theOwningEdgeReadsItsSession() throws Exception {
        String id = ledger.initialize("own-read");

        Reply reply = ledger.edge("GET", "/v1/sessions/" + id).client(clientToken("own-read")).send();

        assertThat(reply.assertStatus(200).json().path("id").asText()).isEqualTo(id);
    }

    @Test
    void aSessionReadWithAForeignClientTokenIs404SessionNotFound() throws Exception {
        String id = ledger.initialize("foreign-read");

        ledger.edge("GET", "/v1/sessions/" + id).client(clientToken("mallory")).send()
                .assertError(404, "session_not_found", "session not found");
    }

    @Test
    void aSessionNeverIssuedIs404SessionNotFound() throws Exception {
        ledger.auditor("GET", "/v1/sessions/mcp-never-issued").send()
                .assertError(404, "session_not_found", "session not found");
    }

    @Test
    void readingAnIdleSessionExpiresItOnce() throws Exception {
        String id = ledger.initialize("idle-read");
        ledger.clock.advance(IDLE_EXPIRY.plusMillis(1));
        long before = ledger.receipts();

        Reply first = ledger.auditor("GET", "/v1/sessions/" + id).send();
        Reply second = ledger.auditor("GET", "/v1/sessions/" + id).send();

        assertThat(first.assertStatus(200).json().path("state").asText()).isEqualTo("expired");
        assertThat(second.assertStatus(200).json()).isEqualTo(first.json());
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.expired");
    }

    @Test
    void theActiveListingPagesThroughActiveSessionsInIdOrder() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            List<String> active = new ArrayList<>();
            for (String client : List.of("a", "b", "c", "d", "e")) {
                active.add(own.initialize(client));
            }
            String deleted = active.remove(2);
            own.edge("DELETE", "/v1/sessions/" + deleted).client(clientToken("c")).send().assertStatus(200);
            active.sort(null);

            Reply first = own.auditor("GET", "/v1/sessions?state=active&limit=2").send();
            Reply second = own.auditor("GET", "/v1/sessions?state=active&limit=2&after="
                    + first.json().path("next").asText()).send();

            assertThat(ids(first.assertStatus(200))).isEqualTo(active.subList(0, 2));
            assertThat(first.json().path("next").asText()).isEqualTo(active.get(1));
            assertThat(ids(second.assertStatus(200))).isEqualTo(active.subList(2, 4));
            assertThat(second.json().has("next")).isFalse();
        }
    }

    @Test
    void theListingWithoutStateIncludesEndedSessions() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String kept = own.initialize("kept");
            String deleted = own.initialize("deleted");
            own.edge("DELETE", "/v1/sessions/" + deleted).client(clientToken("deleted")).send().assertStatus(200);

            Reply reply = own.auditor("GET", "/v1/sessions").send();

            assertThat(ids(reply.assertStatus(200))).isEqualTo(List.of(kept, deleted).stream().sorted().toList());
            assertThat(reply.json().has("next")).isFalse();
            assertThat(own.auditor("GET", "/v1/sessions?state=active").send().json().path("sessions").size())
                    .isEqualTo(1);
        }
    }

    @Test
    void theListingAnswersEachSessionAsItsSessionObject() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("listed");

            Reply reply = own.edge("GET", "/v1/sessions?state=active").client(HttpLedger.clientToken("listed")).send();

            assertThat(reply.assertStatus(200).json().path("sessions").get(0))
                    .isEqualTo(own.auditor("GET", "/v1/sessions/" + id).send().json());
        }
    }

    @Test
    void aListingLimitOutOfRangeIs400InvalidRequest() throws Exception {
        ledger.auditor("GET", "/v1/sessions?limit=0").send().assertError(400, "invalid_request",
                "query parameter limit must be an integer from 1 to 1000, got \"0\"");
    }

    @Test
    void aListingStateOtherThanActiveIs400InvalidRequest() throws Exception {
        ledger.auditor("GET", "/v1/sessions?state=expired").send().assertError(400, "invalid_request",
                "query parameter state must be \"active\" or absent, got \"expired\"");
    }

    // GET /v1/investigate/{requestId}.

    @Test
    void aCompletedCallIsInvestigatedAsCompletedOk() throws Exception {
        Reply initialized = ledger.initialize("inv-ok", HttpLedger.initializeJson("inv-ok"));
        String id = initialized.session().path("id").asText();
        Reply admitted = ledger.call(id, "inv-ok", "inv-ok-1", "quote");
        Reply outcome = ledger.outcome(id, "inv-ok", "inv-ok-1", "{\"status\":\"ok\"}");

        Reply reply = ledger.auditor("GET", "/v1/investigate/inv-ok-1").send();

        assertThat(reply.assertStatus(200).json()).isEqualTo(parse("{\"verdict\":\"completed_ok\",\"session\":\"" + id
                + "\",\"requestId\":\"inv-ok-1\",\"timeline\":[" + admitted.rawReceipt() + "," + outcome.rawReceipt()
                + "],\"capability\":" + initialized.receipt().body().path("capability") + ",\"policy\":\""
                + initialized.receipt().body().path("policy").asText() + "\",\"laterCalls\":[]}"));
    }

    @Test
    void aCallWithAnErrorOutcomeIsInvestigatedAsCompletedError() throws Exception {
        String id = ledger.initialize("inv-error");
        ledger.call(id, "inv-error", "inv-error-1", "quote").assertStatus(200);
        ledger.outcome(id, "inv-error", "inv-error-1", "{\"status\":\"error\"}").assertStatus(200);

        assertThat(verdict("inv-error-1")).isEqualTo("completed_error");
    }

    @Test
    void aRefusedCallIsInvestigatedAsRefused() throws Exception {
        String id = ledger.initialize("inv-refused");
        Reply refused = ledger.call(id, "inv-refused", "inv-refused-1", "refund");

        Reply reply = ledger.auditor("GET", "/v1/investigate/inv-refused-1").send();

        assertThat(reply.assertStatus(200).json().path("verdict").asText()).isEqualTo("refused");
        assertThat(reply.json().path("timeline")).isEqualTo(parse("[" + refused.rawReceipt() + "]"));
    }

    @Test
    void aCallLeftByAPreviousIncarnationIsInvestigatedAsOutcomeUnknownWithItsLaterLookAlikes() throws Exception {
        String id = ledger.initialize("inv-unknown", "{\"principal\":\"inv-unknown\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}}")
                .assertStatus(201).session().path("id").asText();
        ledger.call(id, "inv-unknown", "inv-unknown-1", "quote").assertStatus(200);
        ledger.resume(id, "inv-unknown", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}").assertStatus(200);
        Reply retry = ledger.call(id, "inv-unknown", callJson("inv-unknown-2", "pricing", "quote", args("inv-unknown-1")));

        Reply reply = ledger.auditor("GET", "/v1/investigate/inv-unknown-1").send();

        assertThat(reply.assertStatus(200).json().path("verdict").asText()).isEqualTo("outcome_unknown");
        assertThat(reply.json().path("timeline").size()).isEqualTo(2);
        assertThat(reply.json().path("laterCalls")).isEqualTo(parse("[{\"requestId\":\"inv-unknown-2\","
                + "\"decision\":\"admitted\",\"verdict\":\"pending\",\"at\":\"" + Timestamps.format(retry.receipt().at())
                + "\",\"receipt\":\"" + retry.receipt().id() + "\"}]"));
    }

    @Test
    void anAdmittedCallWithoutOutcomeIsInvestigatedAsPending() throws Exception {
        String id = ledger.initialize("inv-pending");
        ledger.call(id, "inv-pending", "inv-pending-1", "quote").assertStatus(200);

        assertThat(verdict("inv-pending-1")).isEqualTo("pending");
    }

    @Test
    void aResolvedCallIsInvestigatedAsItsResolution() throws Exception {
        String id = ledger.initialize("inv-not-run", "{\"principal\":\"inv-not-run\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}}")
                .assertStatus(201).session().path("id").asText();
        ledger.call(id, "inv-not-run", "inv-not-run-1", "quote").assertStatus(200);
        ledger.resume(id, "inv-not-run", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}").assertStatus(200);
        ledger.operator("POST", "/v1/sessions/" + id + "/calls/inv-not-run-1/resolution")
                .json("{\"status\":\"not_run\",\"note\":\"no trace in the tool\"}").send().assertStatus(200);

        assertThat(verdict("inv-not-run-1")).isEqualTo("not_run");
    }

    @Test
    void aRequestIdNeverUsedIsInvestigatedAsNotFoundWith200() throws Exception {
        Reply reply = ledger.auditor("GET", "/v1/investigate/inv-never-used").send();

        assertThat(reply.assertStatus(200).json()).isEqualTo(parse("{\"verdict\":\"not_found\","
                + "\"requestId\":\"inv-never-used\",\"timeline\":[],\"laterCalls\":[]}"));
    }

    @Test
    void aRequestIdUsedInSeveralSessionsIsInvestigatedInTheNamedOne() throws Exception {
        String first = ledger.initialize("inv-shared-a");
        String second = ledger.initialize("inv-shared-b");
        ledger.call(first, "inv-shared-a", "inv-shared", "quote").assertStatus(200);
        ledger.call(second, "inv-shared-b", "inv-shared", "refund").assertStatus(200);

        Reply reply = ledger.auditor("GET", "/v1/investigate/inv-shared?session=" + second).send();

        assertThat(reply.assertStatus(200).json().path("verdict").asText()).isEqualTo("refused");
        assertThat(reply.json().path("session").asText()).isEqualTo(second);
    }

    @Test
    void aRequestIdUsedInSeveralSessionsWithoutOneNamedIs400InvalidRequest() throws Exception {
        String first = ledger.initialize("inv-ambiguous-a");
        String second = ledger.initialize("inv-ambiguous-b");
        ledger.call(first, "inv-ambiguous-a", "inv-ambiguous", "quote").assertStatus(200);
        ledger.call(second, "inv-ambiguous-b", "inv-ambiguous", "quote").assertStatus(200);
        List<String> sessions = List.of(first, second).stream().sorted().toList();

        ledger.auditor("GET", "/v1/investigate/inv-ambiguous").send().assertError(400, "invalid_request",
                "requestId inv-ambiguous was used in 2 sessions (" + String.join(", ", sessions)
                        + "); name one with ?session=ID or ?client=TOKENREF");
    }

    // GET /v1/projections/digest.

    @Test
    void theDigestAnswersTheTreeSizeAndADigest() throws Exception {
        Reply reply = ledger.auditor("GET", "/v1/projections/digest").send();

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("treeSize", "digest");
        assertThat(reply.json().path("treeSize").asLong()).isEqualTo(ledger.receipts());
        assertThat(reply.json().path("digest").asText()).matches("[0-9a-f]{64}");
    }

    @Test
    void theDigestChangesWithEveryReceipt() throws Exception {
        JsonNode before = ledger.auditor("GET", "/v1/projections/digest").send().json();

        ledger.initialize("digest-moves");

        JsonNode after = ledger.auditor("GET", "/v1/projections/digest").send().json();
        assertThat(after.path("treeSize").asLong()).isEqualTo(before.path("treeSize").asLong() + 1);
        assertThat(after.path("digest").asText()).isNotEqualTo(before.path("digest").asText());
    }

    @Test
    void theDigestIsUnchangedByARestart() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("replayed");
            own.call(id, "replayed", "r1", "quote").assertStatus(200);
            own.call(id, "replayed", "r2", "refund").assertStatus(200);
            own.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + clientToken("gone") + "\"}")
                    .send().assertStatus(200);
            own.edge("DELETE", "/v1/sessions/" + id).client(clientToken("replayed")).send().assertStatus(200);
            String before = own.auditor("GET", "/v1/projections/digest").send().text();

            own.restart();

            assertThat(own.auditor("GET", "/v1/projections/digest").send().assertStatus(200).text()).isEqualTo(before);
            assertThat(parse(before).path("treeSize").asLong()).isEqualTo(6);
        }
    }

    // GET /v1/log/public-key.

    @Test
    void thePublicKeyAnswersOriginKeyIdPemAndVerifierKey() throws Exception {
        String pem = Files.readString(ledger.stateDirectory.resolve("public-key.pem"));
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        assertThat(Hex.encode(Arrays.copyOf(der, 12))).isEqualTo(ED25519_SPKI_PREFIX);
        byte[] raw = Arrays.copyOfRange(der, 12, der.length);
        String origin = "ledger.local/" + Sha256.hex(raw).substring(0, 16);
        byte[] typed = new byte[33];
        typed[0] = 0x01;
        System.arraycopy(raw, 0, typed, 1, 32);
        String keyId = Hex.encode(Arrays.copyOf(Sha256.digest((origin + "\n").getBytes(StandardCharsets.UTF_8), typed), 4));

        Reply reply = ledger.request("GET", "/v1/log/public-key").send();

        reply.assertStatus(200);
        assertThat(reply.fieldNames()).containsExactlyInAnyOrder("origin", "keyId", "pem", "vkey");
        assertThat(reply.json().path("origin").asText()).isEqualTo(origin);
        assertThat(reply.json().path("keyId").asText()).isEqualTo(keyId);
        assertThat(reply.json().path("pem").asText()).isEqualTo(pem);
        assertThat(reply.json().path("vkey").asText())
                .isEqualTo(origin + "+" + keyId + "+" + Base64.getEncoder().encodeToString(typed));
    }

    private static String verdict(String requestId) throws Exception {
        return ledger.auditor("GET", "/v1/investigate/" + requestId).send().assertStatus(200).json()
                .path("verdict").asText();
    }

    private static List<String> ids(Reply reply) {
        List<String> ids = new ArrayList<>();
        reply.json().path("sessions").forEach(s -> ids.add(s.path("id").asText()));
        return ids;
    }

    private static PublicKey publicKey(String pem) throws Exception {
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
    }

    /** The receipt's JCS text without its {@code sig} member (standard base64 holds no quote). */
    private static String withoutSig(String line) {
        return line.replaceFirst(",\"sig\":\"[^\"]*\"", "");
    }

    @Test
    void healthNeedsNoCredentialAndCountsTheReceiptsAndTheIntegratedEntries() throws Exception {
        Reply health = ledger.request("GET", "/health").send();

        assertThat(health.status()).isEqualTo(200);
        assertThat(health.fieldNames()).containsExactly("status", "receipts", "treeSize");
        assertThat(health.json().path("status").asText()).isEqualTo("ok");
        assertThat(health.json().path("receipts").asLong()).isEqualTo(ledger.receipts());
        assertThat(health.json().path("treeSize").asLong()).isBetween(0L, ledger.receipts());
    }

    @Test
    void anEdgeReadingASessionWithoutItsClientTokenIs400() throws Exception {
        String id = ledger.initialize("no-header");

        ledger.edge("GET", "/v1/sessions/" + id).send().assertError(400, "invalid_request",
                "header Client-Token-Sha256 is required: the SHA-256 of the MCP client's bearer token");
    }

    @Test
    void anAuditorReadsASessionWithoutAClientToken() throws Exception {
        String id = ledger.initialize("auditor-read");

        assertThat(ledger.auditor("GET", "/v1/sessions/" + id).send().assertStatus(200).json().path("id").asText())
                .isEqualTo(id);
    }
}
