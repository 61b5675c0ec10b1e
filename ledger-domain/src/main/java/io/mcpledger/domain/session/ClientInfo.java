package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;

/** The MCP client's self-description (from initialize, or a sessionless request's {@code _meta}); either field may be absent. */
public record ClientInfo(String name, String version) {
    /** The receipt form {@code {"name"?, "version"?}}. */
    public ObjectNode toJson() {
        ObjectNode info = Canonical.JSON.createObjectNode();
        if (name != null) {
            info.put("name", name);
        }
        if (version != null) {
            info.put("version", version);
        }
        return info;
    }
}
