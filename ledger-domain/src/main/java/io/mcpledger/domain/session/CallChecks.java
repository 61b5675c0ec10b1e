package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import java.util.Objects;

/**
 * The rules of contract section 4 on a call's repeats, outcomes and resolutions, which a session's calls and a client
 * stream's calls (section 15) follow alike: the aggregates of both decide with these, so the two never drift apart.
 */
final class CallChecks {
    private CallChecks() {
    }

    /**
     * The same requestId again: its first decision is answered again when the server, tool, operation and
     * argumentsSha256 are the same, else {@code 409 request_id_conflict}. {@code where} says where the requestId was
     * used ("this session", "this client").
     */
    static CallAnswer repeat(CallRecord earlier, String server, String tool, String operation, String argumentsSha256,
                             String where) {
        JsonNode asked = earlier.decision().body();
        boolean same = asked.path("server").asText().equals(server) && asked.path("tool").asText().equals(tool)
                && asked.path("operation").asText().equals(operation)
                && asked.path("argumentsSha256").asText().equals(argumentsSha256);
        if (!same) {
            throw new LedgerException(ErrorCode.REQUEST_ID_CONFLICT, "requestId " + earlier.requestId()
                    + " was already used in " + where + " with a different server, tool, operation or argumentsSha256");
        }
        String capabilityId = textOrNull(asked, "capability");
        if (earlier.admitted()) {
            return new CallAnswer(earlier.decision(), null, capabilityId);
        }
        JsonNode reason = asked.path("reason");
        return new CallAnswer(earlier.decision(), new Reason(reason.path("code").asText(),
                reason.path("message").asText()), capabilityId);
    }

    /**
     * The refusal a 410 or 403 answered before for this requestId, with the same reason code: repeated rather than
     * appended again; null when there is none.
     */
    static Receipt earlierRefusal(CallRecord earlier, Reason reason) {
        if (earlier != null && !earlier.admitted()
                && reason.code().equals(earlier.decision().body().path("reason").path("code").asText())) {
            return earlier.decision();
        }
        return null;
    }

    /** The admitted call an outcome or resolution names: else {@code 404 call_not_found} or {@code 409 call_not_admitted}. */
    static CallRecord admitted(CallRecord call, String requestId, String where) {
        if (call == null) {
            throw new LedgerException(ErrorCode.CALL_NOT_FOUND, "no call with requestId " + requestId + " in " + where);
        }
        if (!call.admitted()) {
            throw new LedgerException(ErrorCode.CALL_NOT_ADMITTED, "request " + requestId + " was refused, not admitted");
        }
        return call;
    }

    /**
     * An edge's outcome for an admitted call: the body of the {@code call.outcome} to append while it is pending; null
     * when the same final outcome is already recorded (answer {@code call.outcomeReceipt()} again); else {@code 409
     * outcome_conflict}.
     */
    static ObjectNode outcome(CallRecord call, String status, String resultSha256, String detail) {
        switch (call.outcome()) {
            case PENDING -> {
                ObjectNode body = Canonical.JSON.createObjectNode();
                body.put("status", status);
                if (resultSha256 != null) {
                    body.put("resultSha256", resultSha256);
                }
                if (detail != null) {
                    body.put("detail", detail);
                }
                return body;
            }
            case OK, ERROR -> {
                JsonNode recorded = call.outcomeReceipt().body();
                boolean same = recorded.path("status").asText().equals(status)
                        && Objects.equals(textOrNull(recorded, "resultSha256"), resultSha256);
                if (same) {
                    return null;
                }
                throw new LedgerException(ErrorCode.OUTCOME_CONFLICT, "request " + call.requestId()
                        + " already has the final outcome " + recorded.path("status").asText()
                        + (recorded.has("resultSha256") ? " with resultSha256 " + recorded.path("resultSha256").asText() : ""));
            }
            default -> throw new LedgerException(ErrorCode.OUTCOME_CONFLICT, "request " + call.requestId()
                    + " has an unknown outcome; only an operator's resolution can settle it now");
        }
    }

    /** An operator's resolution: the body of the {@code call.resolved} to append, or {@code 409 call_not_unknown}. */
    static ObjectNode resolution(CallRecord call, String status, String note) {
        if (call.outcome() != CallRecord.Outcome.UNKNOWN || call.resolution() != null) {
            String where = call.resolution() != null ? "already resolved as " + call.resolution()
                    : "its outcome is " + call.outcome().name().toLowerCase();
            throw new LedgerException(ErrorCode.CALL_NOT_UNKNOWN,
                    "request " + call.requestId() + " is not unknown: " + where);
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("status", status);
        body.put("note", note);
        return body;
    }

    /** The body of the {@code call.outcome} {@code unknown} a new edge incarnation gives a call left pending. */
    static ObjectNode unknown(String detail) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("status", "unknown");
        body.put("detail", detail);
        return body;
    }

    static String textOrNull(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null ? null : v.asText();
    }
}
