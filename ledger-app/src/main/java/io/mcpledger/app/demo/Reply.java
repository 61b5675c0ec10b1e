package io.mcpledger.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;

/** One HTTP answer of the ledger: its status, its body as text, and the body as JSON when it is JSON. */
record Reply(int status, String body, JsonNode json) {
    static Reply of(int status, String body) {
        JsonNode json;
        try {
            json = body.isEmpty() ? MissingNode.getInstance() : Canonical.parse(body);
        } catch (IOException e) {
            // Text answers (a checkpoint) are not JSON; they are read from body().
            json = MissingNode.getInstance();
        }
        return new Reply(status, body, json == null ? MissingNode.getInstance() : json);
    }

    /** The receipt the answer carries, beside a result or an error; a missing node when there is none. */
    JsonNode receipt() {
        return json.path("receipt");
    }

    boolean hasReceipt() {
        return json.path("receipt").isObject();
    }

    /** The contract's error code, or null when the answer is not an error. */
    String errorCode() {
        JsonNode code = json.path("error").path("code");
        return code.isTextual() ? code.asText() : null;
    }

    String errorMessage() {
        return json.path("error").path("message").asText("");
    }

    /** What came back, in a few words, for a failure message. */
    String summary() {
        if (errorCode() != null) {
            return "HTTP " + status + " " + errorCode() + " (" + errorMessage() + ")";
        }
        String text = body.length() > 200 ? body.substring(0, 200) + "..." : body;
        return "HTTP " + status + " " + text;
    }
}
