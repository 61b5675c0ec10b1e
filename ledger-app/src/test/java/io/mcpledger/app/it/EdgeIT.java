package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.TokenRefs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-app edge} from the packaged jar (contract section 16), in front of the jar's own stdio pricing server:
 * bad flags and a bad clients file end with one line and exit 2; and an edge killed with SIGKILL in the middle of two
 * calls (one in a session, one without) leaves nothing pending once it starts again: its new incarnation marks the
 * sessionless call unknown, and the session's resume marks the other.
 */
class EdgeIT {
    private static final String TOKEN = "alice's bearer token";
    private static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 3600}
            """;

    @TempDir
    Path work;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void badFlagsAndABadClientsFileEndWithOneLineAndExit2() throws Exception {
        Files.writeString(work.resolve("bad-clients.yaml"), "clients:\n  - {tokenSha256: NOT-HEX, principal: alice}\n");
        Files.writeString(work.resolve("clients.yaml"), clients());
        Files.writeString(work.resolve("edge.token"), "a credential\n");
        String[][] cases = {
            {"edge", "--ledger-credential", "edge.token", "--", "true"},
            {"edge", "--ledger-credential", "edge.token", "--clients", "bad-clients.yaml", "--", "true"},
            {"edge", "--ledger-credential", "edge.token", "--clients", "clients.yaml", "--expired-status", "500", "--",
                "true"},
            {"edge", "--ledger-credential", "missing.token", "--clients", "clients.yaml", "--", "true"},
            {"edge", "--ledger-credential", "edge.token", "--clients", "clients.yaml"},
            {"edge", "--ledger-credential", "edge.token", "--clients", "clients.yaml", "--listen",
                "127.0.0.1:" + LedgerProcess.freePort(), "--", "/no/such/server"},
        };
        String[] expected = {
            "ledger-app edge: --clients FILE is required: the client tokens this edge accepts",
            "ledger-app edge: bad-clients.yaml: client 1: tokenSha256 must be 64 lowercase hex characters (the SHA-256"
                    + " of the client's bearer token)",
            "ledger-app edge: --expired-status must be 404 or 410, got 500",
            "ledger-app edge: cannot read --ledger-credential missing.token: ",
            "ledger-app edge: Missing required parameter: 'COMMAND' (see 'ledger-app edge --help')",
            "ledger-app edge: cannot start the stdio server /no/such/server: ",
        };
        for (int i = 0; i < cases.length; i++) {
            Process p = LedgerProcess.run(work, cases[i]);
            String err = LedgerProcess.read(p.getErrorStream());
            assertThat(p.exitValue()).as("exit of %s", String.join(" ", cases[i])).isEqualTo(2);
            assertThat(err.lines().toList()).as("stderr of %s", String.join(" ", cases[i])).hasSize(1);
            assertThat(err).startsWith(expected[i]);
        }
    }

    @Test
    void anEdgeKilledMidCallLeavesNothingPendingOnceItStartsAgain() throws Exception {
        Path policy = work.resolve("policy.yaml");
        Files.writeString(policy, POLICY);
        Files.writeString(work.resolve("clients.yaml"), clients());
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--policy", policy.toString())) {
            String auditor = LedgerProcess.token(work, "auditor");
            int port = LedgerProcess.freePort();
            Edge edge = Edge.start(work, ledger.port(), port);
            String session;
            try {
                HttpResponse<String> initialized = mcp(port, null, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                        + "\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}");
                session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
                CompletableFuture<?> inSession = mcpAsync(port, session, "2025-06-18", "{\"jsonrpc\":\"2.0\",\"id\":2,"
                        + "\"method\":\"tools/call\",\"params\":{\"name\":\"quote\",\"arguments\":{\"sku\":\"HANG\","
                        + "\"qty\":1}}}");
                CompletableFuture<?> sessionless = mcpAsync(port, null, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":3,"
                        + "\"method\":\"tools/call\",\"params\":{\"name\":\"quote\",\"arguments\":{\"sku\":\"HANG\","
                        + "\"qty\":2},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}", "Mcp-Method", "tools/call",
                        "Mcp-Name", "quote");
                awaitPending(ledger, auditor, session);
                edge.kill();
                // Neither client ever hears an answer: the connection dies with the edge.
                assertThat(inSession).failsWithin(Duration.ofSeconds(10));
                assertThat(sessionless).failsWithin(Duration.ofSeconds(10));
            } finally {
                edge.kill();
            }

            Edge again = Edge.start(work, ledger.port(), port);
            try {
                assertThat(again.stderr).anyMatch(l -> l.contains("The ledger marked 1 sessionless calls an earlier"
                        + " run of edge edge-it left without an outcome as unknown"));
                JsonNode client = json(ledger.get("/v1/clients/" + TokenRefs.of(Sha256.hexOfUtf8(TOKEN)), auditor,
                        null));
                assertThat(client.path("calls").path("unknown").asLong()).isEqualTo(1);
                assertThat(client.path("calls").path("pending").asLong()).isZero();
                HttpResponse<String> listed = mcp(port, session, "2025-06-18",
                        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
                assertThat(listed.statusCode()).isEqualTo(200);
                JsonNode resumed = json(ledger.get("/v1/sessions/" + session, auditor, null));
                assertThat(resumed.path("resumes").asLong()).isEqualTo(1);
                assertThat(resumed.path("calls").path("unknown").asLong()).isEqualTo(1);
                assertThat(resumed.path("calls").path("pending").asLong()).isZero();
            } finally {
                again.kill();
            }
        }
    }

    private static String clients() {
        return "clients:\n  - {tokenSha256: " + Sha256.hexOfUtf8(TOKEN) + ", principal: alice}\n";
    }

    /** Waits until the ledger holds both calls, pending: the edge has forwarded them to the hanging server. */
    private static void awaitPending(LedgerProcess ledger, String auditor, String session) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            JsonNode s = json(ledger.get("/v1/sessions/" + session, auditor, null));
            HttpResponse<String> c = ledger.get("/v1/clients/" + TokenRefs.of(Sha256.hexOfUtf8(TOKEN)), auditor, null);
            if (s.path("calls").path("pending").asLong() == 1 && c.statusCode() == 200
                    && json(c).path("calls").path("pending").asLong() == 1) {
                Thread.sleep(300); // the stdio server has the calls by now: they hang there
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the two calls were not admitted within 20 s");
    }

    private HttpResponse<String> mcp(int port, String session, String version, String json) throws Exception {
        return http.send(request(port, session, version, json), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> mcpAsync(int port, String session, String version, String json,
                                                             String... headers) {
        return http.sendAsync(request(port, session, version, json, headers), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST to the edge; {@code headers} alternates more header names and values. */
    private static HttpRequest request(int port, String session, String version, String json, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(json));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        if (version != null) {
            request.header("MCP-Protocol-Version", version);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request.build();
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return Canonical.parse(response.body());
    }

    /** An edge process from the jar, with the jar's pricing server as its stdio server. */
    private static final class Edge {
        final Process process;
        final List<String> stdout = new CopyOnWriteArrayList<>();
        final List<String> stderr = new CopyOnWriteArrayList<>();

        private Edge(Process process) {
            this.process = process;
            TestIo.collectLines(process.getInputStream(), stdout);
            TestIo.collectLines(process.getErrorStream(), stderr);
        }

        static Edge start(Path work, int ledgerPort, int port) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(java, "-jar", LedgerProcess.jar().toString(), "edge",
                    "--listen", "127.0.0.1:" + port, "--ledger", "http://127.0.0.1:" + ledgerPort, "--clients",
                    "clients.yaml", "--edge-id", "edge-it", "--call-timeout", "60s", "--", java, "-cp",
                    LedgerProcess.jar().toString(), "io.mcpledger.app.demo.PricingMcpServer"));
            Edge edge = new Edge(new ProcessBuilder(command).directory(work.toFile()).start());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (edge.stdout.stream().noneMatch(l -> l.startsWith("Ready: edge edge-it"))) {
                if (!edge.process.isAlive() || System.nanoTime() > deadline) {
                    edge.kill();
                    throw new AssertionError("the edge did not start; stderr: " + edge.stderr);
                }
                Thread.sleep(50);
            }
            return edge;
        }

        /** SIGKILL, as {@code kill -9}: no shutdown hook runs. Its stdio server, orphaned, is killed too. */
        void kill() throws InterruptedException {
            List<ProcessHandle> children = process.toHandle().descendants().toList();
            process.toHandle().destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
