package io.mcpledger.app.bench;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.demo.PricingMcpServer;
import io.mcpledger.app.demo.RestartablePorts;
import io.mcpledger.app.edge.EdgeServer;
import io.mcpledger.app.edge.EdgeSettings;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the reference edge adds to a {@code tools/call} (a plain {@code main}, not a test), measured with a real MCP
 * client, the official MCP Java SDK's: the same {@code quote} call, one at a time, (a) straight to the stdio pricing
 * server over the SDK's stdio transport, and (b) over Streamable HTTP through the edge, which asks the ledger (durable,
 * forced commits: the admission, then the outcome) before and after forwarding it to the same kind of stdio server.
 * Everything runs in this JVM but the two stdio servers. Arguments: warm-up calls and measured calls per case
 * (default 2000 and 5000).
 */
public final class EdgeOverheadBenchmark {
    private static final String TOKEN = "benchmark client token";

    private EdgeOverheadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> server = List.of(java, "-cp", System.getProperty("java.class.path"),
                PricingMcpServer.class.getName());
        System.out.printf(Locale.ROOT, "java %s, %d processors; %d warm-up and %d measured calls per case%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), warmup, measured);

        try (McpSyncClient direct = McpClient.sync(new StdioClientTransport(ServerParameters.builder(java)
                .args(server.subList(1, server.size())).build(), McpJsonDefaults.getMapper()))
                .requestTimeout(Duration.ofSeconds(30)).build()) {
            direct.initialize();
            report("stdio server alone (SDK stdio client)", run(direct, warmup, measured));
        }

        Path dir = Files.createTempDirectory("edge-bench");
        StateDirectory directory = new StateDirectory(dir.resolve("state"));
        directory.init(null);
        LoadedState state = directory.load(null);
        LedgerSettings settings = new LedgerSettings(directory.directory(), null, new HostPort("127.0.0.1", 0),
                PolicyFiles.parse("capabilities: {default: {tools: [{server: pricing, tool: quote, operations: [invoke],"
                        + " ttl: 86400}]}}"), Duration.ofMinutes(30), 10_000, Duration.ofSeconds(1));
        int edgePort = RestartablePorts.pick();
        try (LedgerServer ledger = LedgerServer.start(state, settings, Clock.systemUTC());
             EdgeServer edge = EdgeServer.start(new EdgeSettings("127.0.0.1", edgePort,
                     URI.create("http://127.0.0.1:" + ledger.port() + "/"),
                     Files.readString(directory.tokenFile(Role.EDGE)).strip(), Map.of(Sha256.hexOfUtf8(TOKEN), "bench"),
                     null, "edge-bench", Duration.ofSeconds(30), 410, server));
             McpSyncClient viaEdge = McpClient.sync(HttpClientStreamableHttpTransport
                     .builder("http://127.0.0.1:" + edgePort).endpoint("/mcp")
                     .httpRequestCustomizer((builder, method, uri, body, context) ->
                             builder.header("Authorization", "Bearer " + TOKEN)).build())
                     .requestTimeout(Duration.ofSeconds(30)).build()) {
            viaEdge.initialize();
            report("through the edge and the ledger (SDK Streamable HTTP client)", run(viaEdge, warmup, measured));
            report("through the edge and the ledger (plain HTTP/1.1 client, one JSON-RPC message per POST)",
                    rawThroughEdge(edgePort, warmup, measured));
            report("the ledger's part alone: admission, then outcome, over HTTP", ledgerAlone(ledger.port(),
                    Files.readString(directory.tokenFile(Role.EDGE)).strip(), warmup, measured));
            System.out.printf(Locale.ROOT, "ledger receipts: %d%n", ledger.engine().entries().size());
        }
    }

    /**
     * What the edge asks of the ledger per call, without MCP: in one session, {@code POST .../calls} then
     * {@code POST .../outcome}, one pair at a time; the latencies of whole pairs.
     */
    private static long[] ledgerAlone(int port, String credential, int warmup, int measured) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String token = Sha256.hexOfUtf8("ledger-alone client");
        String base = "http://127.0.0.1:" + port;
        HttpResponse<String> opened = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions"))
                .header("Authorization", "Bearer " + credential).header("Client-Token-Sha256", token)
                .POST(HttpRequest.BodyPublishers.ofString("{\"principal\":\"bench\",\"serverId\":\"pricing\","
                        + "\"protocolVersion\":\"2025-06-18\"}")).build(), HttpResponse.BodyHandlers.ofString());
        String session = Canonical.parse(opened.body()).path("session").path("id").asText();
        String args = Sha256.hexOfUtf8("{}");
        return timed("pairs", warmup, measured, i -> {
            String request = "r-" + i;
            HttpResponse<String> admitted = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + session
                    + "/calls")).header("Authorization", "Bearer " + credential).header("Client-Token-Sha256", token)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"requestId\":\"" + request + "\",\"server\":"
                            + "\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\",\"argumentsSha256\":\""
                            + args + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> outcome = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + session
                    + "/calls/" + request + "/outcome")).header("Authorization", "Bearer " + credential)
                    .header("Client-Token-Sha256", token)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"status\":\"ok\",\"resultSha256\":\"" + args
                            + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
            if (admitted.statusCode() != 200 || outcome.statusCode() != 200) {
                throw new IllegalStateException("the ledger answered " + admitted.body() + " / " + outcome.body());
            }
        });
    }

    /** The same call through the edge with the JDK's HTTP client instead of the SDK's transport. */
    private static long[] rawThroughEdge(int port, int warmup, int measured) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI mcp = URI.create("http://127.0.0.1:" + port + "/mcp");
        HttpResponse<String> opened = http.send(HttpRequest.newBuilder(mcp).header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                        + "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
                        + "{\"name\":\"raw\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
        String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
        return timed("calls", warmup, measured, i -> {
            HttpResponse<String> called = http.send(HttpRequest.newBuilder(mcp).header("Authorization", "Bearer " + TOKEN)
                    .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":" + (i + 1) + ",\"method\":"
                            + "\"tools/call\",\"params\":{\"name\":\"quote\",\"arguments\":{\"sku\":\"A-100\","
                            + "\"qty\":3}}}")).build(), HttpResponse.BodyHandlers.ofString());
            if (called.statusCode() != 200 || called.body().contains("\"isError\":true")) {
                throw new IllegalStateException("the edge answered " + called.statusCode() + " " + called.body());
            }
        });
    }

    /** The SDK client's {@code quote} call. */
    private static long[] run(McpSyncClient client, int warmup, int measured) throws Exception {
        McpSchema.CallToolRequest quote = new McpSchema.CallToolRequest("quote", Map.of("sku", "A-100", "qty", 3));
        return timed("calls", warmup, measured, i -> {
            McpSchema.CallToolResult result = client.callTool(quote);
            if (Boolean.TRUE.equals(result.isError())) {
                throw new IllegalStateException("a call failed: " + result);
            }
        });
    }

    /** One round trip of a case; {@code i} counts from 0 over warm-up and measured calls. */
    private interface Call {
        void run(int i) throws Exception;
    }

    /**
     * Runs {@code call} {@code warmup} times unmeasured, then {@code measured} times, one at a time, and prints the
     * rate; answers the measured latencies in nanoseconds, sorted.
     */
    private static long[] timed(String unit, int warmup, int measured, Call call) throws Exception {
        for (int i = 0; i < warmup; i++) {
            call.run(i);
        }
        long[] nanos = new long[measured];
        long started = System.nanoTime();
        for (int i = 0; i < measured; i++) {
            long t = System.nanoTime();
            call.run(warmup + i);
            nanos[i] = System.nanoTime() - t;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "  %d %s in %.1f s: %.0f %s/s%n", measured, unit, seconds, measured / seconds,
                unit);
        Arrays.sort(nanos);
        return nanos;
    }

    private static void report(String what, long[] nanos) {
        System.out.printf(Locale.ROOT, "%s: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n", what,
                HttpLoadGenerator.percentile(nanos, 0.50), HttpLoadGenerator.percentile(nanos, 0.90),
                HttpLoadGenerator.percentile(nanos, 0.99), HttpLoadGenerator.percentile(nanos, 0.999),
                HttpLoadGenerator.percentile(nanos, 1.0));
    }
}
