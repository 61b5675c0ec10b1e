package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.policy.Grant;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Timestamps;
import java.util.ArrayList;
import java.util.List;

/** The authority a session holds: an id and its grants, as issued in a receipt. */
public record Capability(String id, List<Grant> grants) {
    public Capability {
        grants = List.copyOf(grants);
    }

    /** The receipt form {@code {"id": ..., "grants": [{server, tool, operations, notAfter}]}}. */
    public ObjectNode toJson() {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("id", id);
        node.set("grants", grantsJson());
        return node;
    }

    public ArrayNode grantsJson() {
        ArrayNode array = Canonical.JSON.createArrayNode();
        for (Grant g : grants) {
            array.add(g.toJson());
        }
        return array;
    }

    /** Reads the receipt form back. */
    public static Capability fromJson(JsonNode node) {
        List<Grant> grants = new ArrayList<>();
        for (JsonNode g : node.path("grants")) {
            List<String> ops = new ArrayList<>();
            g.path("operations").forEach(op -> ops.add(op.asText()));
            grants.add(new Grant(g.path("server").asText(), g.path("tool").asText(), ops,
                    Timestamps.parse(g.path("notAfter").asText())));
        }
        return new Capability(node.path("id").asText(), grants);
    }
}
