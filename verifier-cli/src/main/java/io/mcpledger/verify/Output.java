package io.mcpledger.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import java.io.PrintWriter;

/** Writes a command's answer: text for people, or one JSON document (--json) for scripts. */
final class Output {
    private Output() {
    }

    static ObjectNode object() {
        return Canonical.JSON.createObjectNode();
    }

    static void json(PrintWriter out, JsonNode node) {
        try {
            out.println(Canonical.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree did not serialize: " + e.getMessage(), e);
        }
        out.flush();
    }

    /**
     * The JSON of a failed check: {"valid": false, "file", "line"?, "entry"?, "reason", "error"}; a problem with a
     * whole file (line 0), as receipt and consistency have, carries no line.
     */
    static ObjectNode invalid(LogCheck.Problem problem) {
        ObjectNode node = object();
        node.put("valid", false);
        node.put("file", problem.file());
        if (problem.line() > 0) {
            node.put("line", problem.line());
            node.put("entry", problem.line() - 1);
        }
        node.put("reason", problem.reason());
        node.put("error", problem.describe());
        return node;
    }
}
