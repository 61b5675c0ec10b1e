package io.mcpledger.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.edge.EdgeServer;
import io.mcpledger.app.edge.EdgeSettings;
import io.mcpledger.app.edge.McpEdge;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pricing-desk story of the contract's section 12 told through the reference edge (section 16): a real MCP client
 * (the official MCP Java SDK's Streamable HTTP client) speaks to {@code ledger-app edge} in front of a stdio pricing
 * server written with the same SDK, and the edge asks the ledger before every {@code tools/call}. The client keeps its
 * session id across an edge restart; a narrowed policy and a revoked capability refuse calls with receipts; a server
 * that dies mid-call leaves an outcome the ledger records as unknown; the exported log verifies offline.
 */
public final class McpDeskStory extends DemoStory {
    static final String FULL_POLICY = PricingDeskStory.FULL_POLICY;
    static final String NARROWED_POLICY = PricingDeskStory.NARROWED_POLICY;
    private static final String EDGE_ID = "edge-1";
    /** alice's bearer token: only her MCP client and the edge (as its SHA-256, in the clients list) know it. */
    private static final String TOKEN = "alice's MCP bearer token";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);

    private final String tokenSha256 = Sha256.hexOfUtf8(TOKEN);
    private final List<McpSyncClient> clients = new ArrayList<>();
    private EdgeServer edge;
    private int edgePort;

    /** The story, printed to {@code out}, with its state and bundle under {@code work} (an empty directory). */
    public McpDeskStory(PrintWriter out, Path work, Duration checkpointInterval, boolean verbose) {
        super(out, work, checkpointInterval, verbose);
    }

    @Override
    protected String story() throws IOException, InterruptedException, io.mcpledger.app.statedir.StateException {
        say.paragraph("The pricing-desk story of the ledger contract's section 12 (docs/contract.md), told through the"
                + " reference MCP edge (section 16, docs/edge.md) with a real MCP client.");
        say.paragraph("alice's MCP client speaks Streamable HTTP to the edge; the edge asks the ledger before it"
                + " forwards any tools/call to the stdio pricing server, and records how each call ended.");

        step("The ledger starts on a fresh state.");
        ledger = DemoLedger.create(work.resolve("state"), checkpointInterval);
        ledger.start();
        say.say("ledger", "listening on " + ledger.address() + ", origin " + ledger.origin());

        step("The operator activates the pricing-desk policy: every principal may quote and discount.");
        policy(FULL_POLICY);

        step("The edge starts in front of the stdio pricing server, and tells the ledger its new incarnation.");
        edgePort = RestartablePorts.pick();
        startEdge();

        step("alice's MCP client initializes through the edge: the MCP session is a ledger session.");
        McpSyncClient alice = client();
        McpSchema.InitializeResult initialized = alice.initialize();
        say.say("alice", "initialize (protocol " + initialized.protocolVersion() + ") -> server "
                + initialized.serverInfo().name() + " " + initialized.serverInfo().version());
        String session = onlySession();
        say.more("the client keeps Mcp-Session-Id " + session + ": the id of the ledger's session");

        step("alice asks for a quote: admitted, forwarded, and its outcome recorded before she hears the result.");
        McpSchema.CallToolResult quote = call(alice, "quote", Map.of("sku", "WIDGET-7", "qty", 40));
        expect(!Boolean.TRUE.equals(quote.isError()), "a price", quote::toString);
        expectCalls(session, "call.admitted", "call.outcome");

        step("The edge restarts (a new incarnation). alice's client goes on under the same session id.");
        edge.close();
        say.say("edge", "stopped; it keeps nothing on disk");
        startEdge();
        McpSchema.CallToolResult again = call(alice, "quote", Map.of("sku", "WIDGET-7", "qty", 50));
        expect(!Boolean.TRUE.equals(again.isError()), "a price", again::toString);
        String still = onlySession();
        expect(still.equals(session), "the same session " + session, () -> still);
        JsonNode resumed = sessionObject(session);
        expect(resumed.path("resumes").asLong() == 1, "the session resumed once, with no new initialize",
                () -> resumed.path("resumes").toString());
        say.more("the edge resumed " + session + " in the ledger (resumes 1): a fresh capability from the current"
                + " policy, no new initialize");

        step("The operator narrows the policy to discount only.");
        policy(NARROWED_POLICY);

        step("A quote is refused: never forwarded; alice gets an error result carrying the refusal's receipt.");
        McpSchema.CallToolResult refused = call(alice, "quote", Map.of("sku", "WIDGET-7", "qty", 60));
        expect(Boolean.TRUE.equals(refused.isError()) && text(refused).equals(
                "requested tool quote on server pricing is not in capability scope"),
                "an isError result: not in capability scope", refused::toString);
        expectReceiptKind(refused, "call.refused");

        step("A discount is still admitted.");
        McpSchema.CallToolResult discount = call(alice, "discount", Map.of("price", 560, "percent", 5));
        expect(!Boolean.TRUE.equals(discount.isError()), "a discounted price", discount::toString);

        step("The operator revokes the session's capability; the next discount is refused.");
        String capability = sessionObject(session).path("capability").path("id").asText();
        Reply revoked = send("operator", Role.OPERATOR, "POST", "/v1/capabilities/" + capability + "/revoke", null,
                null, null, null);
        expectStatus(revoked, 200, "capability.revoked");
        answer(revoked.status() + " " + receiptLine(revoked.receipt()));
        McpSchema.CallToolResult noAuthority = call(alice, "discount", Map.of("price", 560, "percent", 5));
        expect(Boolean.TRUE.equals(noAuthority.isError())
                        && text(noAuthority).equals("capability has been revoked: " + capability),
                "an isError result: capability revoked", noAuthority::toString);

        step("alice opens a new MCP session: its capability comes from the current policy, discount only.");
        McpSyncClient second = client();
        second.initialize();
        String session2 = newestSession(session);
        JsonNode grants = sessionObject(session2).path("capability").path("grants");
        expect(grants.size() == 1 && grants.path(0).path("tool").asText().equals("discount"), "discount only",
                grants::toString);
        say.more("session " + session2 + ": discount only");

        step("A discount is admitted and forwarded, and the pricing server dies before it answers.");
        String unknownRequest = crashedCall(second);

        step("An auditor investigates that call.");
        Reply investigated = send("auditor", Role.AUDITOR, "GET", "/v1/investigate/" + unknownRequest, null, null,
                null, null);
        expectStatus(investigated, 200, "an investigation");
        String verdict = investigated.json().path("verdict").asText();
        expect(verdict.equals("outcome_unknown"), "verdict outcome_unknown", () -> verdict);
        answer("200 verdict " + verdict + ": the call may have run; inspect the pricing server before any retry");

        step("alice is done with the second session: DELETE /mcp ends it, and its id answers 404 afterwards.");
        endSession(session2);

        step("alice closes her MCP clients (the first one ends its session with DELETE /mcp); the auditor reads the"
                + " projection digest and the latest checkpoint; the ledger stops.");
        clients.forEach(McpSyncClient::closeGracefully);
        clients.clear();
        JsonNode first = sessionObject(session);
        expect(first.path("state").asText().equals("deleted"), "the first session deleted by its client's close",
                () -> first.path("state").asText());
        say.say("alice", "closed; session " + session + " is " + first.path("state").asText());
        JsonNode live = digest();
        awaitCheckpoint(live.path("treeSize").asLong());
        stopAll();
        say.say("ledger", "stopped; every answered receipt is stored");

        step("The operator exports the bundle; ledger-verify checks it and replays it to the live digest.");
        Path bundle = work.resolve("bundle");
        ToolRun export = ToolRun.ledgerAppExport("--state", ledger.stateDirectory().toString(), "--out",
                bundle.toString());
        show("operator", export);
        expect(export.exit() == 0, "exit 0", () -> "exit " + export.exit() + ": " + export.err().strip());
        Path key = ledger.stateDirectory().resolve(StateDirectory.PUBLIC_KEY);
        ToolRun log = ToolRun.ledgerVerify("log", bundle.toString(), "--key", key.toString());
        show("auditor", log);
        expect(log.exit() == 0, "exit 0 (the log is valid)", () -> "exit " + log.exit());
        replay(bundle, key, live);

        return "DEMO PASSED: all " + step + " steps of the pricing-desk story behaved as the contract's sections 12 and"
                + " 16 say, through the MCP edge with a real MCP client; " + live.path("treeSize").asLong()
                + " receipts, and the bundle verifies and replays to the live digest.";
    }

    @Override
    protected void stopAll() {
        clients.forEach(McpSyncClient::close);
        clients.clear();
        if (edge != null) {
            edge.close();
            edge = null;
        }
        super.stopAll();
    }

    private void startEdge() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> server = List.of(java, "-cp", System.getProperty("java.class.path"),
                PricingMcpServer.class.getName());
        EdgeSettings settings = new EdgeSettings(DemoLedger.HOST, edgePort,
                URI.create("http://" + ledger.address() + "/"), ledger.credential(Role.EDGE),
                Map.of(tokenSha256, "alice"), null, EDGE_ID, CALL_TIMEOUT, 410, server);
        edge = EdgeServer.start(settings);
        say.say("edge", EDGE_ID + " serving MCP on http://" + DemoLedger.HOST + ":" + edgePort + "/mcp for server "
                + edge.edge().serverId() + " (incarnation " + edge.edge().incarnation().substring(0, 8) + "...)");
    }

    /** A new MCP client for alice: the SDK's Streamable HTTP transport, sending her bearer token. */
    private McpSyncClient client() {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://" + DemoLedger.HOST + ":" + edgePort).endpoint("/mcp")
                .httpRequestCustomizer((builder, method, uri, body, context) ->
                        builder.header("Authorization", "Bearer " + TOKEN))
                .build();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(CALL_TIMEOUT.plusSeconds(10))
                .clientInfo(new McpSchema.Implementation("pricing-desk", "1.0")).build();
        clients.add(client);
        return client;
    }

    private McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest(tool, arguments));
        Object receipt = result.meta() == null ? null : result.meta().get(McpEdge.RECEIPT_META);
        say.say("alice", "tools/call " + tool + " " + Canonical.jcs(Canonical.JSON.valueToTree(arguments)));
        say.more("-> " + (Boolean.TRUE.equals(result.isError()) ? "error result: " : "") + text(result));
        expect(receipt instanceof Map<?, ?>, "the receipt in _meta[\"" + McpEdge.RECEIPT_META + "\"]",
                result::toString);
        say.more("   _meta " + McpEdge.RECEIPT_META + " " + Canonical.jcs(Canonical.JSON.valueToTree(receipt)));
        return result;
    }

    /** A discount the server dies in: the client hears that the outcome is unknown; answers the ledger requestId. */
    private String crashedCall(McpSyncClient client) {
        say.say("alice", "tools/call discount {\"percent\":5,\"price\":560,\"sku\":\"CRASH\"}");
        String message;
        try {
            client.callTool(new McpSchema.CallToolRequest("discount", Map.of("price", 560, "percent", 5, "sku",
                    "CRASH")));
            message = "a result";
        } catch (RuntimeException e) {
            message = String.valueOf(e.getMessage());
        }
        String heard = message;
        expect(heard.contains("outcome of this tools/call is unknown"), "an error saying the outcome is unknown",
                () -> heard);
        say.more("-> error: " + heard);
        java.util.regex.Matcher request = java.util.regex.Pattern.compile("inspect request (call-[0-9a-f]{32})")
                .matcher(heard);
        expect(request.find(), "the ledger's requestId in the error", () -> heard);
        say.say("edge", "recorded outcome unknown for " + request.group(1) + " and restarted the pricing server");
        return request.group(1);
    }

    private void endSession(String session) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        URI mcp = URI.create("http://" + DemoLedger.HOST + ":" + edgePort + "/mcp");
        say.say("alice", "DELETE /mcp  Mcp-Session-Id " + session);
        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(mcp).header("Authorization", "Bearer " + TOKEN)
                .header("Mcp-Session-Id", session).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        expect(deleted.statusCode() == 200, "200", () -> deleted.statusCode() + " " + deleted.body());
        say.more("-> 200; the ledger appended session.deleted");
        HttpResponse<String> gone = http.send(HttpRequest.newBuilder(mcp).header("Authorization", "Bearer " + TOKEN)
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        say.say("alice", "POST /mcp  tools/list under the same id");
        expect(gone.statusCode() == 404, "404", () -> gone.statusCode() + " " + gone.body());
        say.more("-> 404 " + Canonical.parse(gone.body()).path("error").path("message").asText());
    }

    private void policy(String yaml) throws IOException, InterruptedException {
        Reply reply = send("operator", Role.OPERATOR, "PUT", "/v1/policy", null, "application/yaml", yaml, "(YAML)");
        say.quote(yaml);
        expectStatus(reply, 200, "policy.activated");
        answer(reply.status() + " " + receiptLine(expectReceipt(reply, "policy.activated")));
    }

    /** alice's only session in the ledger. */
    private String onlySession() throws IOException, InterruptedException {
        JsonNode sessions = ledger.send(Role.AUDITOR, "GET", "/v1/sessions", tokenSha256, null, null).json()
                .path("sessions");
        expect(sessions.size() == 1, "one session for alice's token", sessions::toString);
        return sessions.path(0).path("id").asText();
    }

    /** alice's session other than {@code known}. */
    private String newestSession(String known) throws IOException, InterruptedException {
        JsonNode sessions = ledger.send(Role.AUDITOR, "GET", "/v1/sessions", tokenSha256, null, null).json()
                .path("sessions");
        for (JsonNode s : sessions) {
            if (!s.path("id").asText().equals(known)) {
                return s.path("id").asText();
            }
        }
        throw new DemoFailure(step, "a second session for alice", sessions.toString());
    }

    private JsonNode sessionObject(String session) throws IOException, InterruptedException {
        return ledger.send(Role.AUDITOR, "GET", "/v1/sessions/" + session, null, null, null).json();
    }

    /** The kinds of the session's call receipts so far, checked and printed. */
    private void expectCalls(String session, String... kinds) throws IOException, InterruptedException {
        Reply entries = ledger.send(Role.AUDITOR, "GET", "/v1/sessions/" + session, null, null, null);
        long seq = entries.json().path("seq").asLong();
        JsonNode calls = entries.json().path("calls");
        expect(calls.path("admitted").asLong() == 1 && calls.path("completed").asLong() == 1,
                "1 admitted and 1 completed call", calls::toString);
        say.say("ledger", "session " + session + " at seq " + seq + ": " + String.join(", ", kinds)
                + " (status ok, resultSha256 of the result as the server wrote it)");
    }

    private void expectReceiptKind(McpSchema.CallToolResult result, String kind)
            throws IOException, InterruptedException {
        Object id = ((Map<?, ?>) result.meta().get(McpEdge.RECEIPT_META)).get("receiptId");
        Reply receipt = ledger.send(Role.AUDITOR, "GET", "/v1/receipts/" + id, null, null, null);
        expect(kind.equals(receipt.receipt().path("kind").asText()), "a " + kind + " receipt", receipt::summary);
        say.say("auditor", "GET /v1/receipts/" + id + " -> " + kind);
    }

    private static String text(McpSchema.CallToolResult result) {
        return result.content().isEmpty() || !(result.content().get(0) instanceof McpSchema.TextContent t)
                ? "" : t.text();
    }
}
