package io.mcpledger.app.edge;

import io.mcpledger.app.Environments;
import io.mcpledger.domain.receipt.Canonical;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/**
 * MCP Streamable HTTP on {@code /mcp} for the edge (contract section 16): carries each request's headers and body to
 * {@link McpEdge} and its answer back. Requests run on the blocking pool: each waits for the ledger and, for a call,
 * for the stdio server.
 */
@Requires(env = Environments.EDGE)
@Controller(value = "/mcp", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
class McpController {
    private final McpEdge edge;

    McpController(McpEdge edge) {
        this.edge = edge;
    }

    @Post
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> post(@Nullable @Header("Authorization") String authorization,
                              @Nullable @Header("Mcp-Session-Id") String sessionId,
                              @Nullable @Header("MCP-Protocol-Version") String protocolVersion,
                              @Nullable @Header("Mcp-Method") String method,
                              @Nullable @Header("Mcp-Name") String name,
                              @Body @Bindable(defaultValue = "") byte[] body) {
        return http(edge.post(new McpEdge.Headers(authorization, sessionId, protocolVersion, method, name), body));
    }

    @Delete
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> delete(@Nullable @Header("Authorization") String authorization,
                                @Nullable @Header("Mcp-Session-Id") String sessionId,
                                @Nullable @Header("MCP-Protocol-Version") String protocolVersion) {
        return http(edge.delete(new McpEdge.Headers(authorization, sessionId, protocolVersion)));
    }

    @Get
    HttpResponse<byte[]> get(@Nullable @Header("Authorization") String authorization) {
        return http(edge.get(new McpEdge.Headers(authorization, null, null)));
    }

    private static HttpResponse<byte[]> http(McpEdge.Response answer) {
        MutableHttpResponse<byte[]> response = HttpResponse.status(io.micronaut.http.HttpStatus.valueOf(answer.status()));
        answer.headers().forEach(response::header);
        if (answer.body() != null) {
            response.body(Canonical.jcsBytes(answer.body())).contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        return response;
    }
}
