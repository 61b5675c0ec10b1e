package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.edge.McpEdge;
import io.mcpledger.app.testing.InteropTools;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.TokenRefs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP clients this project did not write, from npm, through the reference edge and the ledger to the stdio pricing
 * server: the official TypeScript SDK's client 1.x ({@code @modelcontextprotocol/sdk}) in the initialize era, reusing
 * its saved session id through its {@code sessionId} option after an edge restart, and its successor 2.x
 * ({@code @modelcontextprotocol/client}) pinned to revision {@code 2026-07-28}, whose calls become sessionless receipts.
 * The packages come from the lockfile committed in {@code src/test/node}, installed with {@code npm ci}; where Node.js
 * or npm is missing the class is skipped, except where {@code LEDGER_TEST_INTEROP=required} (CI) makes that a failure.
 */
class TypeScriptInteropTest {
    private static final String ALICE = "alice's bearer token";
    private static final String BOB = "bob's bearer token";
    private static final Path SOURCES = Path.of("src", "test", "node");
    private static final Path INSTALLED = Path.of("target", "typescript-interop");
    private static final Duration NPM_CI_LIMIT = Duration.ofMinutes(5);
    private static final Duration CLIENT_LIMIT = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private EdgeUnderTest world;
    private HttpLedger ledger;

    /** Copies the package, its lockfile and the client script next to the build's output and installs the SDKs there. */
    @BeforeAll
    static void installTheSdksFromTheLockfile() throws Exception {
        for (String program : List.of("node", "npm")) {
            if (!InteropTools.onPath(program)) {
                requireOrSkip(program + " is not on the PATH");
            }
        }
        Files.createDirectories(INSTALLED);
        for (String file : List.of("package.json", "package-lock.json", "mcp-client.mjs")) {
            Files.copy(SOURCES.resolve(file), INSTALLED.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Path log = INSTALLED.resolve("npm-ci.log");
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(INSTALLED.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!npm.waitFor(NPM_CI_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            npm.destroyForcibly();
            requireOrSkip("npm ci did not finish within " + NPM_CI_LIMIT.toMinutes() + " minutes (" + log + ")");
        }
        if (npm.exitValue() != 0) {
            requireOrSkip("npm ci failed with exit code " + npm.exitValue() + ": " + Files.readString(log).strip());
        }
    }

    @BeforeEach
    void start() throws Exception {
        world = EdgeUnderTest.start(dir, "edge-ts", Duration.ofSeconds(10), ALICE, "alice", BOB, "bob");
        ledger = world.ledger;
    }

    @AfterEach
    void stop() {
        world.close();
    }

    @Test
    void theTypeScriptSdkClientKeepsItsSavedSessionIdAcrossAnEdgeRestartWithoutInitializingAgain() throws Exception {
        JsonNode first = run(legacy(ALICE, null).calls(quote("A-100")));
        String session = first.path("sessionId").asText();

        world.restartEdge();
        JsonNode second = run(legacy(ALICE, session).calls(quote("B-200")));

        assertThat(first.path("protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(text(first, 0)).isEqualTo("A-100 x3: 42.00 EUR");
        assertThat(second.path("connected").asBoolean()).isTrue();
        assertThat(second.path("sessionId").asText()).isEqualTo(session);
        assertThat(text(second, 0)).isEqualTo("B-200 x3: 42.00 EUR");
        assertThat(ledger.kindsOf(session)).containsExactly("session.initialized", "call.admitted", "call.outcome",
                "session.resumed", "call.admitted", "call.outcome");
        List<Receipt> receipts = ledger.receiptsOf(session);
        assertThat(receipts.get(4).id()).isEqualTo(receiptOf(second, 0).path("receiptId").asText());
        assertThat(receipts.get(0).body().path("clientInfo").path("name").asText()).isEqualTo("ts-sdk-1");
        // A 1.x client given a saved id never learned the version, so it sends no MCP-Protocol-Version header: the
        // resume takes contract section 4's default.
        assertThat(receipts.get(3).bodyText("protocolVersion")).isEqualTo("2025-03-26");
    }

    @Test
    void theNarrowedPolicyRefusesQuoteWhileDiscountWorksThenARevocationStopsTheClient() throws Exception {
        JsonNode opened = run(legacy(ALICE, null).calls(quote("A-100")));
        String session = opened.path("sessionId").asText();
        ledger.putPolicy("""
                capabilities:
                  default:
                    tools:
                      - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
                """).assertStatus(200);

        JsonNode narrowed = run(legacy(ALICE, session).calls(quote("A-100"), discount()));
        ledger.operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + Sha256.hexOfUtf8(ALICE) + "\"}").send().assertStatus(200);
        JsonNode revoked = run(legacy(ALICE, session).calls(discount()));

        JsonNode refused = narrowed.path("calls").get(0).path("result");
        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.path("content").get(0).path("text").asText())
                .isEqualTo("requested tool quote on server pricing is not in capability scope");
        assertThat(auditorReceipt(receiptOf(narrowed, 0).path("receiptId").asText()).kind().wire())
                .isEqualTo("call.refused");
        assertThat(text(narrowed, 1)).isEqualTo("85.00 EUR");
        // The edge answers the ledger's 403 as HTTP 403 with a JSON-RPC error; the 1.x client raises it with the status.
        assertThat(revoked.path("calls").get(0).path("error").path("code").asInt()).isEqualTo(403);
        assertThat(revoked.path("calls").get(0).path("error").path("message").asText())
                .contains("{\"code\":-32001,\"message\":\"the client token has been revoked\"}");
        List<Receipt> receipts = ledger.receiptsOf(session);
        Receipt last = receipts.get(receipts.size() - 1);
        assertThat(last.kind().wire()).isEqualTo("call.refused");
        assertThat(last.body().path("reason").path("code").asText()).isEqualTo("token_revoked");
    }

    @Test
    void aTerminatedSessionIsDeletedInTheLedgerAndItsIdIsNotFoundAfterwards() throws Exception {
        JsonNode used = run(legacy(BOB, null).calls(discount()).terminate());
        String session = used.path("sessionId").asText();

        JsonNode again = run(legacy(BOB, session).calls(discount()));

        assertThat(used.path("terminated").asBoolean()).isTrue();
        assertThat(again.path("calls").get(0).path("error").path("code").asInt()).isEqualTo(404);
        assertThat(again.path("calls").get(0).path("error").path("message").asText())
                .contains("{\"code\":-32001,\"message\":\"session has been deleted\"}");
        assertThat(ledger.kindsOf(session)).containsExactly("session.initialized", "call.admitted", "call.outcome",
                "session.deleted");
    }

    @Test
    void aClientOfRevision20260728CallsWithoutASessionAndItsCallsFormItsClientStream() throws Exception {
        JsonNode modern = run(modern(ALICE).calls(quote("A-100"), discount()));
        ledger.putPolicy("""
                capabilities:
                  default:
                    tools:
                      - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
                """).assertStatus(200);
        world.restartEdge();
        JsonNode narrowed = run(modern(ALICE).calls(quote("A-100"), discount()));
        ledger.operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + Sha256.hexOfUtf8(ALICE) + "\"}").send().assertStatus(200);
        JsonNode revoked = run(modern(ALICE).calls(discount()));

        assertThat(modern.path("protocolVersion").asText()).isEqualTo("2026-07-28");
        assertThat(modern.path("sessionId").isNull()).isTrue();
        assertThat(text(modern, 0)).isEqualTo("A-100 x3: 42.00 EUR");
        assertThat(text(modern, 1)).isEqualTo("85.00 EUR");
        String tokenRef = TokenRefs.of(Sha256.hexOfUtf8(ALICE));
        List<Receipt> stream = ledger.server().engine().clientReceipts(tokenRef);
        assertThat(stream).extracting(r -> r.kind().wire()).containsExactly("call.admitted", "call.outcome",
                "call.admitted", "call.outcome", "call.refused", "call.admitted", "call.outcome", "call.refused");
        assertThat(stream).allSatisfy(r -> {
            assertThat(r.client()).isEqualTo(tokenRef);
            assertThat(r.session()).isNull();
        });
        Receipt first = stream.get(0);
        assertThat(first.id()).isEqualTo(receiptOf(modern, 0).path("receiptId").asText());
        assertThat(first.bodyText("protocolVersion")).isEqualTo("2026-07-28");
        assertThat(first.body().path("clientInfo")).isEqualTo(parse("{\"name\":\"ts-client-2\",\"version\":\"2.4.0\"}"));
        assertThat(first.bodyText("argumentsSha256"))
                .isEqualTo(Sha256.hex(Canonical.jcsBytes(parse("{\"qty\":3,\"sku\":\"A-100\"}"))));
        assertThat(first.body().path("grant").path("tool").asText()).isEqualTo("quote");
        assertThat(narrowed.path("calls").get(0).path("result").path("isError").asBoolean()).isTrue();
        assertThat(stream.get(4).body().path("reason").path("code").asText()).isEqualTo("not_in_scope");
        assertThat(text(narrowed, 1)).isEqualTo("85.00 EUR");
        assertThat(revoked.path("calls").get(0).path("error").path("message").asText())
                .contains("the client token has been revoked");
        assertThat(stream.get(7).body().path("reason").path("code").asText()).isEqualTo("token_revoked");
        JsonNode client = ledger.auditor("GET", "/v1/clients/" + tokenRef).send().assertStatus(200).json();
        assertThat(client.path("calls").toString())
                .isEqualTo("{\"admitted\":3,\"refused\":2,\"completed\":3,\"unknown\":0,\"pending\":0}");
        assertThat(client.path("seq").asLong()).isEqualTo(8);
        assertThat(ledger.auditor("GET", "/v1/sessions").client(Sha256.hexOfUtf8(ALICE)).send().assertStatus(200)
                .json().path("sessions")).isEmpty();
    }

    @Test
    void theTypeScriptClientLeftToNegotiateChoosesRevision20260728() throws Exception {
        JsonNode auto = run(modern(ALICE).negotiate().calls(discount()));

        assertThat(auto.path("protocolVersion").asText()).isEqualTo("2026-07-28");
        assertThat(text(auto, 0)).isEqualTo("85.00 EUR");
        List<Receipt> stream = ledger.server().engine().clientReceipts(TokenRefs.of(Sha256.hexOfUtf8(ALICE)));
        assertThat(stream).extracting(r -> r.kind().wire()).containsExactly("call.admitted", "call.outcome");
    }

    /** A plan for {@code mcp-client.mjs}: which SDK, which token, which calls. */
    private final class Plan {
        private final ObjectNode json = Canonical.JSON.createObjectNode();

        Plan(String era, String token, String sessionId) {
            json.put("url", world.mcp());
            json.put("token", token);
            json.put("era", era);
            if (sessionId != null) {
                json.put("sessionId", sessionId);
            }
            json.putArray("calls");
        }

        Plan calls(ObjectNode... calls) {
            ArrayNode list = (ArrayNode) json.get("calls");
            for (ObjectNode call : calls) {
                list.add(call);
            }
            return this;
        }

        /** The 2.x client's {@code versionNegotiation} mode {@code 'auto'} instead of the pinned revision. */
        Plan negotiate() {
            json.put("negotiation", "auto");
            return this;
        }

        Plan terminate() {
            json.put("terminate", true);
            return this;
        }
    }

    private Plan legacy(String token, String sessionId) {
        return new Plan("legacy", token, sessionId);
    }

    private Plan modern(String token) {
        return new Plan("modern", token, null);
    }

    private static ObjectNode quote(String sku) {
        ObjectNode call = Canonical.JSON.createObjectNode().put("tool", "quote");
        call.putObject("arguments").put("sku", sku).put("qty", 3);
        return call;
    }

    private static ObjectNode discount() {
        ObjectNode call = Canonical.JSON.createObjectNode().put("tool", "discount");
        call.putObject("arguments").put("price", 100).put("percent", 15);
        return call;
    }

    private static void requireOrSkip(String why) {
        InteropTools.requireOrSkip("TypeScriptInteropTest", why + " (install Node.js 20 or later with npm)");
    }

    /** Runs the TypeScript client on a plan and answers its one-line report; a client that fails to run fails the test. */
    private JsonNode run(Plan plan) throws Exception {
        Path out = dir.resolve("client-" + System.nanoTime() + ".out");
        Path err = dir.resolve("client-" + System.nanoTime() + ".err");
        Process node = new ProcessBuilder("node", "mcp-client.mjs", plan.json.toString())
                .directory(INSTALLED.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!node.waitFor(CLIENT_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            node.destroyForcibly();
            throw new AssertionError("the TypeScript client did not finish within a minute: " + read(err));
        }
        if (node.exitValue() != 0) {
            throw new AssertionError("the TypeScript client exited " + node.exitValue() + ": " + read(err));
        }
        JsonNode report = parse(read(out));
        if (!report.path("connected").asBoolean()) {
            throw new AssertionError("the TypeScript client could not connect: " + report.path("error"));
        }
        return report;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static String text(JsonNode report, int call) {
        JsonNode result = report.path("calls").get(call).path("result");
        assertThat(result.path("isError").asBoolean()).as("call %d: %s", call, report.path("calls").get(call)).isFalse();
        return result.path("content").get(0).path("text").asText();
    }

    private static JsonNode receiptOf(JsonNode report, int call) {
        return report.path("calls").get(call).path("result").path("_meta").path(McpEdge.RECEIPT_META);
    }

    private Receipt auditorReceipt(String id) throws Exception {
        return ledger.auditor("GET", "/v1/receipts/" + id).send().assertStatus(200).receipt();
    }

}
