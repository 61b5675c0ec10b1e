package io.mcpledger.domain.policy;

import java.time.Instant;
import java.util.List;

/** One grant of a capability: a tool (or {@code *}) of a server, the operations allowed, and until when. */
public record Grant(String server, String tool, List<String> operations, Instant notAfter) {
    public Grant {
        operations = List.copyOf(operations);
    }

    /** True when this grant names the server, the tool (or any tool) and the operation. */
    public boolean covers(String server, String tool, String operation) {
        return this.server.equals(server)
                && (this.tool.equals(PolicyDocument.ANY_TOOL) || this.tool.equals(tool))
                && operations.contains(operation);
    }
}
