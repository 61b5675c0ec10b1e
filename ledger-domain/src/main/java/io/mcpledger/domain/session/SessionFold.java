package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;

/**
 * The one fold from receipts to session state, shared by the aggregate, the projections and the offline verifier.
 * Deterministic: it reads only the receipt, the state and the session's calls, never a clock; it checks the chain
 * ({@code seq} runs 1, 2, 3... and {@code prev} is the hash of the receipt before) and every call's transition (in
 * {@link CallFold}, shared with the client streams' {@link ClientFold}), and refuses what cannot follow with a
 * {@link FoldException}.
 */
public final class SessionFold {
    private SessionFold() {
    }

    /**
     * Applies one session receipt. {@code state} is null exactly when the receipt is the session's
     * {@code session.initialized}; the returned state is the same object, changed, or a new one. {@code calls} is the
     * session's call book, read and written for call receipts.
     */
    public static SessionState apply(SessionState state, Receipt r, CallBook calls) {
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
            case CALL_ADMITTED, CALL_REFUSED, CALL_OUTCOME, CALL_RESOLVED -> {
                if (r.kind() == ReceiptKind.CALL_ADMITTED) {
                    requireStatus(state, r, SessionStatus.ACTIVE);
                }
                CallFold.apply(r, calls, state.incarnation(), state);
                if (r.kind() != ReceiptKind.CALL_RESOLVED) {
                    state.lastActivityAt = r.at();
                }
            }
            case CAPABILITY_REVOKED -> {
                state.capabilityRevoked = true;
                state.capabilityRevocationId = r.id();
            }
            default -> throw new FoldException(r.kind() + " is not a session receipt");
        }
        state.seq = r.seq();
        state.head = r.hash();
        return state;
    }


    private static void checkChain(SessionState state, Receipt r) {
        if (!r.session().equals(state.id)) {
            throw new FoldException("receipt of session " + r.session() + " applied to session " + state.id);
        }
        SessionChain.require("session " + state.id, state.seq, state.head, r);
    }

    private static void requireStatus(SessionState state, Receipt r, SessionStatus expected) {
        if (state.status != expected) {
            throw new FoldException(r.kind() + " on session " + state.id + " which is " + state.status.wire());
        }
    }

    private static String textOrNull(JsonNode body, String field) {
        JsonNode v = body.get(field);
        return v == null ? null : v.asText();
    }
}
