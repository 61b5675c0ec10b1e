package io.mcpledger.app.demo;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pricing desk's MCP server for {@code demo --mcp} and the edge's tests, written with the official MCP Java SDK and
 * run by the edge over stdio ({@code java -cp ledger-app.jar io.mcpledger.app.demo.PricingMcpServer}): {@code quote}
 * prices a SKU, {@code discount} only computes a price. Some SKUs misbehave on purpose: {@code CRASH} makes the process
 * exit in the middle of the call (either tool), {@code HANG} never answers a quote, {@code MISSING} is a quote that
 * fails ({@code isError}).
 */
public final class PricingMcpServer {
    private PricingMcpServer() {
    }

    public static void main(String[] args) throws InterruptedException {
        McpSchema.Tool quote = McpSchema.Tool.builder().name("quote").description("Price a quantity of a SKU")
                .inputSchema(Map.of("type", "object", "properties", Map.of("sku", Map.of("type", "string"),
                        "qty", Map.of("type", "integer")), "required", List.of("sku", "qty")))
                .build();
        McpSchema.Tool discount = McpSchema.Tool.builder().name("discount").description("Apply a discount to a price")
                .inputSchema(Map.of("type", "object", "properties", Map.of("price", Map.of("type", "number"),
                        "percent", Map.of("type", "number"), "sku", Map.of("type", "string")),
                        "required", List.of("price", "percent")))
                .build();
        McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(McpJsonDefaults.getMapper()))
                .serverInfo("pricing", "1.0.0")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(SyncToolSpecification.builder().tool(quote).callHandler((exchange, request) -> {
                    String sku = String.valueOf(request.arguments().get("sku"));
                    if (sku.equals("CRASH")) {
                        Runtime.getRuntime().halt(3);
                    }
                    if (sku.equals("HANG")) {
                        sleepForever();
                    }
                    if (sku.equals("MISSING")) {
                        return McpSchema.CallToolResult.builder().addTextContent("no such SKU: " + sku).isError(true)
                                .build();
                    }
                    long qty = ((Number) request.arguments().get("qty")).longValue();
                    return McpSchema.CallToolResult.builder()
                            .addTextContent(String.format(Locale.ROOT, "%s x%d: %.2f EUR", sku, qty, qty * 14.0))
                            .build();
                }).build(), SyncToolSpecification.builder().tool(discount).callHandler((exchange, request) -> {
                    if ("CRASH".equals(request.arguments().get("sku"))) {
                        Runtime.getRuntime().halt(3);
                    }
                    double price = ((Number) request.arguments().get("price")).doubleValue();
                    double percent = ((Number) request.arguments().get("percent")).doubleValue();
                    return McpSchema.CallToolResult.builder()
                            .addTextContent(String.format(Locale.ROOT, "%.2f EUR", price * (100 - percent) / 100))
                            .build();
                }).build())
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        Thread.currentThread().join();
    }

    private static void sleepForever() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
