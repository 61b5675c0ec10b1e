package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.util.Objects;

/**
 * The one fold from receipts to session state, shared by the aggregate, the projections and the
 * offline verifier. Deterministic: it reads only the receipt and the state, never a clock, and checks
 * the chain ({@code seq} runs 1, 2, 3... and {@code prev} is the hash of the receipt before).
 */
public final class SessionFold {
    /** The statuses an operator's resolution may record (spec section 4). */
    private static final java.util.Set<String> RESOLUTIONS = java.util.Set.of("ok", "error", "not_run");

    private SessionFold() {
    }

    /**
     * Applies one session receipt. {@code state} is null exactly when the receipt is the session's
     * {@code session.initialized}; the returned state is the same object, changed, or a new one.
     */
    public static SessionState apply(SessionState state, Receipt r) {
        if (!r.kind().sessionScoped()) {
            throw new FoldException(r.kind() + " is not a session receipt");
        }
        if (state == null) {
            if (r.kind() != ReceiptKind.SESSION_INITIALIZED) {
                throw new FoldException("session " + r.session() + " has no session.initialized before its " + r.kind());
            }
            state = new SessionState(r.session());
        } else if (r.kind() == ReceiptKind.SESSION_INITIALIZED) {
            throw new FoldException("session " + r.session() + " is initialized twice");
        }
        checkChain(state, r);
        switch (r.kind()) {
            case SESSION_INITIALIZED -> {
                JsonNode body = r.body();
                state.principal = body.path("principal").asText();
                state.tokenRef = body.path("tokenRef").asText();
                state.serverId = body.path("serverId").asText();
                state.protocolVersion = body.path("protocolVersion").asText();
                state.createdAt = r.at();
                state.capability = Capability.fromJson(body.path("capability"));
                state.capabilityIds.add(state.capability.id());
                state.policy = textOrNull(body, "policy");
                state.edge = Edge.fromJson(body.get("edge"));
                state.lastActivityAt = r.at();
            }
            case SESSION_RESUMED -> {
                requireStatus(state, r, SessionStatus.ACTIVE);
                JsonNode body = r.body();
                state.resumes++;
                state.protocolVersion = body.path("protocolVersion").asText();
                state.edge = Edge.fromJson(body.get("edge"));
                if (body.has("capability")) {
                    state.capability = Capability.fromJson(body.get("capability"));
                    state.capabilityIds.add(state.capability.id());
                    state.policy = textOrNull(body, "policy");
                }
                state.lastActivityAt = r.at();
            }
            case SESSION_EXPIRED -> {
                requireStatus(state, r, SessionStatus.ACTIVE);
                state.status = SessionStatus.EXPIRED;
            }
            case SESSION_DELETED -> {
                if (state.status == SessionStatus.DELETED) {
                    throw new FoldException("session " + state.id + " is deleted twice");
                }
                state.status = SessionStatus.DELETED;
            }
            case CALL_ADMITTED -> {
                requireStatus(state, r, SessionStatus.ACTIVE);
                String request = requireRequest(r);
                if (state.calls.containsKey(request)) {
                    throw new FoldException("request " + request + " is admitted after an earlier decision");
                }
                state.calls.put(request, new CallRecord(request, r, incarnationOf(state.edge)));
                state.admitted++;
                state.pending++;
                state.lastActivityAt = r.at();
            }
            case CALL_REFUSED -> {
                String request = requireRequest(r);
                state.calls.putIfAbsent(request, new CallRecord(request, r, incarnationOf(state.edge)));
                state.refused++;
                state.lastActivityAt = r.at();
            }
            case CALL_OUTCOME -> applyOutcome(state, r);
            case CALL_RESOLVED -> {
                CallRecord call = admittedCall(state, r);
                if (call.outcome() != CallRecord.Outcome.UNKNOWN || call.resolution() != null) {
                    throw new FoldException("request " + call.requestId() + " is resolved but is not unknown");
                }
                String status = r.bodyText("status");
                if (!RESOLUTIONS.contains(status)) {
                    throw new FoldException("request " + call.requestId() + " is resolved with status '" + status
                            + "'; only ok, error and not_run settle a call");
                }
                call.recordResolution(status, r);
                state.unknown--;
                state.completed++;
            }
            case CAPABILITY_REVOKED -> {
                state.capabilityRevoked = true;
                state.capabilityRevocation = r;
            }
            default -> throw new FoldException(r.kind() + " is not a session receipt");
        }
        state.seq = r.seq();
        state.head = r.hash();
        return state;
    }

    private static void applyOutcome(SessionState state, Receipt r) {
        CallRecord call = admittedCall(state, r);
        String status = r.bodyText("status");
        CallRecord.Outcome next = switch (status) {
            case "ok" -> CallRecord.Outcome.OK;
            case "error" -> CallRecord.Outcome.ERROR;
            case "unknown" -> CallRecord.Outcome.UNKNOWN;
            default -> throw new FoldException("request " + call.requestId() + " has outcome status '" + status + "'");
        };
        if (call.outcome() != CallRecord.Outcome.PENDING) {
            throw new FoldException("request " + call.requestId() + " already has outcome " + call.outcome());
        }
        call.recordOutcome(next, r);
        state.pending--;
        if (next == CallRecord.Outcome.UNKNOWN) {
            state.unknown++;
        } else {
            state.completed++;
        }
        state.lastActivityAt = r.at();
    }

    private static CallRecord admittedCall(SessionState state, Receipt r) {
        String request = requireRequest(r);
        CallRecord call = state.calls.get(request);
        if (call == null || !call.admitted()) {
            throw new FoldException(r.kind() + " for request " + request + " which was not admitted");
        }
        return call;
    }

    private static void checkChain(SessionState state, Receipt r) {
        if (!r.session().equals(state.id)) {
            throw new FoldException("receipt of session " + r.session() + " applied to session " + state.id);
        }
        if (r.seq() != state.seq + 1) {
            throw new FoldException("session " + state.id + " expects seq " + (state.seq + 1) + " but found " + r.seq());
        }
        if (!Objects.equals(r.prev(), state.head)) {
            throw new FoldException("session " + state.id + " seq " + r.seq() + ": prev does not match the hash of seq "
                    + state.seq);
        }
    }

    private static void requireStatus(SessionState state, Receipt r, SessionStatus expected) {
        if (state.status != expected) {
            throw new FoldException(r.kind() + " on session " + state.id + " which is " + state.status.wire());
        }
    }

    private static String requireRequest(Receipt r) {
        if (r.request() == null) {
            throw new FoldException(r.kind() + " without a request id");
        }
        return r.request();
    }

    private static String incarnationOf(Edge edge) {
        return edge == null ? null : edge.incarnation();
    }

    private static String textOrNull(JsonNode body, String field) {
        JsonNode v = body.get(field);
        return v == null ? null : v.asText();
    }
}
