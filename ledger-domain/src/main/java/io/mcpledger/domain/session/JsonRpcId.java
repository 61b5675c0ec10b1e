package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.mcpledger.domain.receipt.Receipt;

/**
 * The JSON-RPC id of a {@code tools/call} as the client sent it (contract section 4): a string, or an integer of at most
 * 2^53 - 1 in magnitude. The receipt records it with its JSON type, so {@code 7} and {@code "7"} stay different ids.
 */
public record JsonRpcId(JsonNode json) {
    /** The largest magnitude of an integer id: the largest integer a receipt holds exactly. */
    public static final long MAX_INTEGER = Receipt.MAX_SAFE_INTEGER;

    public JsonRpcId {
        if (json == null || !(json.isTextual() || Receipt.isSafeInteger(json))) {
            throw new IllegalArgumentException("a JSON-RPC id is a string or an integer of at most 2^53 - 1 in"
                    + " magnitude, got " + json);
        }
    }

    public static JsonRpcId text(String id) {
        return new JsonRpcId(TextNode.valueOf(id));
    }

    public static JsonRpcId integer(long id) {
        return new JsonRpcId(LongNode.valueOf(id));
    }
}
