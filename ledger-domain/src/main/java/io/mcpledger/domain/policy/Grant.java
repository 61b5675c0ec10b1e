package io.mcpledger.domain.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Timestamps;
import java.time.Instant;
import java.util.List;

/** One grant of a capability: a tool (or {@code *}) of a server, the operations allowed, and until when. */
public record Grant(String server, String tool, List<String> operations, Instant notAfter) {
    public Grant {
        operations = List.copyOf(operations);
    }

    /** The receipt form {@code {server, tool, operations, notAfter}}. */
    public ObjectNode toJson() {
        ObjectNode grant = Canonical.JSON.createObjectNode();
        grant.put("server", server);
        grant.put("tool", tool);
        ArrayNode ops = grant.putArray("operations");
        operations.forEach(ops::add);
        grant.put("notAfter", Timestamps.format(notAfter));
        return grant;
    }

    /** True when this grant names the server, the tool (or any tool) and the operation. */
    public boolean covers(String server, String tool, String operation) {
        return this.server.equals(server)
                && (this.tool.equals(PolicyDocument.ANY_TOOL) || this.tool.equals(tool))
                && operations.contains(operation);
    }
}
