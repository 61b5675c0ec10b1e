package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.edge.McpEdge;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.TokenRefs;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference edge (contract section 16) end to end, in-process: the official MCP Java SDK's Streamable HTTP client
 * through the edge and the ledger to a stdio pricing server written with the same SDK. The client keeps its session
 * across an edge restart without initializing again; the current policy, a revocation and a DELETE hold; a server
 * that dies mid-call leaves an outcome the ledger records as unknown; a {@code 2026-07-28} request without a session
 * becomes a call of the client's stream.
 */
class EdgeHttpTest {
    private static final String ALICE = "alice's bearer token";
    private static final String BOB = "bob's bearer token";

    @TempDir
    Path dir;

    private EdgeUnderTest world;
    private HttpLedger ledger;
    private final List<McpSyncClient> clients = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        world = EdgeUnderTest.start(dir, "edge-test", Duration.ofSeconds(5), ALICE, "alice", BOB, "bob");
        ledger = world.ledger;
    }

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::close);
        world.close();
    }

    private McpSyncClient client(String token) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://127.0.0.1:" + world.port).endpoint("/mcp")
                .httpRequestCustomizer((builder, method, uri, body, context) ->
                        builder.header("Authorization", "Bearer " + token))
                .build();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build();
        clients.add(client);
        return client;
    }

    private static McpSchema.CallToolResult quote(McpSyncClient client, String sku) {
        return client.callTool(new McpSchema.CallToolRequest("quote", Map.of("sku", sku, "qty", 3)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> receiptOf(McpSchema.CallToolResult result) {
        assertThat(result.meta()).containsKey(McpEdge.RECEIPT_META);
        return (Map<String, Object>) result.meta().get(McpEdge.RECEIPT_META);
    }

    private JsonNode sessionsOf(String token) throws Exception {
        return ledger.auditor("GET", "/v1/sessions").client(Sha256.hexOfUtf8(token)).send().assertStatus(200).json()
                .path("sessions");
    }

    private List<Receipt> callReceipts(String sessionId) {
        return ledger.receiptsOf(sessionId).stream().filter(r -> r.kind().wire().startsWith("call.")).toList();
    }

    @Test
    void anAdmittedCallIsForwardedAndItsOutcomeRecordedBeforeTheClientHearsIt() throws Exception {
        McpSyncClient alice = client(ALICE);
        McpSchema.InitializeResult initialized = alice.initialize();

        McpSchema.CallToolResult result = quote(alice, "A-100");

        assertThat(initialized.serverInfo().name()).isEqualTo("pricing");
        assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
        assertThat(((McpSchema.TextContent) result.content().get(0)).text()).isEqualTo("A-100 x3: 42.00 EUR");
        Map<String, Object> receipt = receiptOf(result);
        String session = sessionsOf(ALICE).get(0).path("id").asText();
        List<Receipt> calls = callReceipts(session);
        assertThat(calls).extracting(r -> r.kind().wire()).containsExactly("call.admitted", "call.outcome");
        assertThat(calls.get(0).id()).isEqualTo(receipt.get("receiptId"));
        assertThat(calls.get(0).request()).isEqualTo(receipt.get("requestId"));
        assertThat(calls.get(0).bodyText("tool")).isEqualTo("quote");
        assertThat(calls.get(0).bodyText("server")).isEqualTo("pricing");
        assertThat(calls.get(0).bodyText("argumentsSha256"))
                .isEqualTo(Sha256.hex(Canonical.jcsBytes(parse("{\"qty\":3,\"sku\":\"A-100\"}"))));
        assertThat(calls.get(1).bodyText("status")).isEqualTo("ok");
        // The hash of the result as the server wrote it, before the edge added the receipt to _meta.
        assertThat(calls.get(1).bodyText("resultSha256")).isEqualTo(Sha256.hex(Canonical.jcsBytes(parse(
                "{\"content\":[{\"type\":\"text\",\"text\":\"A-100 x3: 42.00 EUR\"}],\"isError\":false}"))));
        assertThat(quote(alice, "MISSING").isError()).isTrue();
        assertThat(callReceipts(session).get(3).bodyText("status")).isEqualTo("error");
    }

    @Test
    void theClientKeepsItsSessionAcrossAnEdgeRestartWithoutInitializingAgain() throws Exception {
        McpSyncClient alice = client(ALICE);
        alice.initialize();
        quote(alice, "A-100");
        String session = sessionsOf(ALICE).get(0).path("id").asText();

        world.restartEdge();
        McpSchema.CallToolResult after = quote(alice, "B-200");

        assertThat(after.isError()).isNotEqualTo(Boolean.TRUE);
        JsonNode sessions = sessionsOf(ALICE);
        assertThat(sessions).hasSize(1);
        assertThat(sessions.get(0).path("id").asText()).isEqualTo(session);
        assertThat(sessions.get(0).path("resumes").asLong()).isEqualTo(1);
        assertThat(ledger.kindsOf(session)).containsExactly("session.initialized", "call.admitted", "call.outcome",
                "session.resumed", "call.admitted", "call.outcome");
    }

    @Test
    void theCurrentPolicyRevocationAndDeleteHold() throws Exception {
        McpSyncClient alice = client(ALICE);
        alice.initialize();
        ledger.putPolicy("""
                capabilities:
                  default:
                    tools:
                      - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
                """).assertStatus(200);

        McpSchema.CallToolResult refused = quote(alice, "A-100");
        McpSchema.CallToolResult discount = alice.callTool(new McpSchema.CallToolRequest("discount",
                Map.of("price", 100, "percent", 15)));

        assertThat(refused.isError()).isTrue();
        assertThat(((McpSchema.TextContent) refused.content().get(0)).text())
                .isEqualTo("requested tool quote on server pricing is not in capability scope");
        String refusal = (String) receiptOf(refused).get("receiptId");
        assertThat(ledger.auditor("GET", "/v1/receipts/" + refusal).send().assertStatus(200).receipt().kind().wire())
                .isEqualTo("call.refused");
        assertThat(((McpSchema.TextContent) discount.content().get(0)).text()).isEqualTo("85.00 EUR");

        ledger.operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + Sha256.hexOfUtf8(ALICE) + "\"}").send().assertStatus(200);
        // The edge answers 403 as the ledger did, and the SDK's transport reports it as an authorization error.
        long before = ledger.receipts();
        assertThatThrownBy(() -> alice.callTool(new McpSchema.CallToolRequest("discount",
                Map.of("price", 100, "percent", 15)))).isInstanceOf(McpHttpClientTransportAuthorizationException.class);
        assertThat(ledger.receipts()).isEqualTo(before + 1); // the refusal's call.refused, with reason token_revoked

        HttpResponse<String> opened = post(BOB, null, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\","
                + "\"version\":\"1\"}}}");
        String bobSession = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertThat(send(BOB, bobSession, "DELETE", null).statusCode()).isEqualTo(200);
        HttpResponse<String> afterDelete = post(BOB, bobSession, "2025-06-18",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        assertThat(afterDelete.statusCode()).isEqualTo(404);
        assertThat(parse(afterDelete.body()).path("error").path("message").asText()).isEqualTo("session has been deleted");
        assertThat(ledger.kindsOf(bobSession)).containsExactly("session.initialized", "session.deleted");
    }

    @Test
    void anExpiredSessionIs404WithExpiredStatus404AndTheSdkClientInitializesAgainAfterwards() throws Exception {
        McpSyncClient alice = client(ALICE);
        alice.initialize();
        String first = sessionsOf(ALICE).get(0).path("id").asText();
        ledger.clock.advance(HttpLedger.IDLE_EXPIRY.plusSeconds(1));

        // The SDK (2.1.0) hears 404 as a terminated session: the call fails, and the client's next request
        // initializes a new session first.
        assertThatThrownBy(() -> quote(alice, "A-100")).hasMessageContaining("MCP session with server terminated");
        McpSchema.CallToolResult after = quote(alice, "A-100");

        assertThat(after.isError()).isNotEqualTo(Boolean.TRUE);
        // The client then drops the session with a DELETE, which ends the expired session for good.
        assertThat(ledger.kindsOf(first)).startsWith("session.initialized", "session.expired", "call.refused");
        JsonNode sessions = sessionsOf(ALICE);
        assertThat(sessions).hasSize(2);
        String second = sessions.get(0).path("id").asText().equals(first) ? sessions.get(1).path("id").asText()
                : sessions.get(0).path("id").asText();
        assertThat(callReceipts(second)).extracting(r -> r.kind().wire()).containsExactly("call.admitted",
                "call.outcome");
    }

    @Test
    void anotherTokenCannotUseASessionAndItsOwnerGoesOn() throws Exception {
        McpSyncClient alice = client(ALICE);
        alice.initialize();
        String session = sessionsOf(ALICE).get(0).path("id").asText();

        HttpResponse<String> stolen = post(BOB, session, "2025-06-18", "{\"jsonrpc\":\"2.0\",\"id\":1,"
                + "\"method\":\"tools/list\"}");
        HttpResponse<String> stranger = post("not a client", session, "2025-06-18", "{\"jsonrpc\":\"2.0\",\"id\":1,"
                + "\"method\":\"tools/list\"}");

        assertThat(stolen.statusCode()).isEqualTo(404);
        assertThat(stranger.statusCode()).isEqualTo(401);
        assertThat(stranger.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertThat(alice.listTools().tools()).extracting(McpSchema.Tool::name).contains("quote", "discount");
    }

    @Test
    void aServerThatDiesMidCallLeavesAnUnknownOutcomeAndIsRestarted() throws Exception {
        McpSyncClient alice = client(ALICE);
        alice.initialize();

        assertThatThrownBy(() -> quote(alice, "CRASH")).hasMessageContaining("outcome of this tools/call is unknown");
        McpSchema.CallToolResult next = quote(alice, "A-100");

        String session = sessionsOf(ALICE).get(0).path("id").asText();
        List<Receipt> calls = callReceipts(session);
        assertThat(calls.get(1).kind().wire()).isEqualTo("call.outcome");
        assertThat(calls.get(1).bodyText("status")).isEqualTo("unknown");
        assertThat(calls.get(1).request()).isEqualTo(calls.get(0).request());
        assertThat(next.isError()).isNotEqualTo(Boolean.TRUE);
        JsonNode investigated = ledger.auditor("GET", "/v1/investigate/" + calls.get(0).request()).send()
                .assertStatus(200).json();
        assertThat(investigated.path("verdict").asText()).isEqualTo("outcome_unknown");
    }

    @Test
    void aSessionlessRequestIsACallOfTheClientsStream() throws Exception {
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"modern\",\"version\":\"2.4.0\"}}";

        HttpResponse<String> discover = post(ALICE, null, "2026-07-28",
                "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{" + meta + "}}",
                "Mcp-Method", "server/discover");
        HttpResponse<String> called = post(ALICE, null, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                + "\"tools/call\",\"params\":{\"name\":\"quote\",\"arguments\":{\"sku\":\"A-100\",\"qty\":3}," + meta + "}}",
                "Mcp-Method", "tools/call", "Mcp-Name", "quote");
        HttpResponse<String> mismatched = post(ALICE, null, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
                + "\"tools/list\",\"params\":{}}");

        assertThat(discover.statusCode()).isEqualTo(200);
        JsonNode found = parse(discover.body()).path("result");
        assertThat(found.path("supportedVersions").toString()).isEqualTo("[\"2026-07-28\"]");
        assertThat(found.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText())
                .isEqualTo("pricing");
        JsonNode result = parse(called.body());
        assertThat(result.path("id").asInt()).isEqualTo(7);
        assertThat(result.path("result").path("resultType").asText()).isEqualTo("complete");
        String receiptId = result.path("result").path("_meta").path(McpEdge.RECEIPT_META).path("receiptId").asText();
        Receipt admitted = ledger.auditor("GET", "/v1/receipts/" + receiptId).send().assertStatus(200).receipt();
        assertThat(admitted.client()).isEqualTo(TokenRefs.of(Sha256.hexOfUtf8(ALICE)));
        assertThat(admitted.body().path("clientInfo")).isEqualTo(parse("{\"name\":\"modern\",\"version\":\"2.4.0\"}"));
        assertThat(admitted.body().path("edge").path("id").asText()).isEqualTo("edge-test");
        assertThat(admitted.body().path("jsonrpcId").asInt()).isEqualTo(7);
        assertThat(ledger.auditor("GET", "/v1/clients/" + admitted.client()).send().assertStatus(200).json()
                .path("calls").path("completed").asLong()).isEqualTo(1);
        assertThat(mismatched.statusCode()).isEqualTo(400);
        assertThat(parse(mismatched.body()).path("error").path("code").asInt()).isEqualTo(-32020);
        assertThat(send(ALICE, null, "GET", "2026-07-28").statusCode()).isEqualTo(405);
    }

    @Test
    void aSessionlessCallWhoseHeadersDoNotNameItsToolIsRefusedBeforeTheLedgerOrTheServerHearsOfIt() throws Exception {
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
        String refund = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"refund\","
                + "\"arguments\":{}," + meta + "}}";
        long before = ledger.receipts();

        HttpResponse<String> otherName = post(ALICE, null, "2026-07-28", refund, "Mcp-Method", "tools/call",
                "Mcp-Name", "quote");
        HttpResponse<String> noName = post(ALICE, null, "2026-07-28", refund, "Mcp-Method", "tools/call");
        HttpResponse<String> noMethod = post(ALICE, null, "2026-07-28", refund, "Mcp-Name", "refund");
        long afterRefused = ledger.receipts();
        // A name that looks like the encoding itself travels encoded (the revision's rule against ambiguity).
        HttpResponse<String> encoded = post(ALICE, null, "2026-07-28", refund.replace("refund", "=?base64?x?="),
                "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?PT9iYXNlNjQ/eD89?=");

        assertThat(List.of(otherName, noName, noMethod)).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(parse(r.body()).path("error").path("code").asInt()).isEqualTo(-32020);
            assertThat(parse(r.body()).path("id").asInt()).isEqualTo(9);
        });
        assertThat(parse(otherName.body()).path("error").path("message").asText())
                .isEqualTo("Header mismatch: Mcp-Name header value 'quote' does not match body value 'refund'");
        assertThat(parse(noName.body()).path("error").path("message").asText())
                .isEqualTo("the Mcp-Name header is missing: a tools/call request names its params.name in it");
        assertThat(parse(noMethod.body()).path("error").path("message").asText())
                .isEqualTo("the Mcp-Method header is missing: a 2026-07-28 request names its method (tools/call) in it");
        assertThat(afterRefused).isEqualTo(before);
        // The encoded name matches, so the call goes to the ledger, which refuses the tool it does not grant.
        assertThat(encoded.statusCode()).isEqualTo(200);
        assertThat(parse(encoded.body()).path("result").path("content").get(0).path("text").asText())
                .isEqualTo("requested tool =?base64?x?= on server pricing is not in capability scope");
        assertThat(ledger.receipts()).isEqualTo(before + 1);
    }

    /** A POST to the edge; {@code headers} alternates more header names and values. */
    private HttpResponse<String> post(String token, String session, String version, String json, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(world.mcp()))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        if (version != null) {
            request.header("MCP-Protocol-Version", version);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(String token, String session, String method, String version) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(world.mcp()))
                .header("Authorization", "Bearer " + token).method(method, HttpRequest.BodyPublishers.noBody());
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        if (version != null) {
            request.header("MCP-Protocol-Version", version);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
