package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;

/** The edge that spoke for a session: its id and incarnation (either may be absent). */
public record Edge(String id, String incarnation) {
    public ObjectNode toJson() {
        ObjectNode node = Canonical.JSON.createObjectNode();
        if (id != null) {
            node.put("id", id);
        }
        if (incarnation != null) {
            node.put("incarnation", incarnation);
        }
        return node;
    }

    /** Null when the node is absent. */
    public static Edge fromJson(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return null;
        }
        JsonNode id = node.get("id");
        JsonNode inc = node.get("incarnation");
        return new Edge(id == null ? null : id.asText(), inc == null ? null : inc.asText());
    }
}
