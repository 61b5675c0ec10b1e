package io.mcpledger.domain.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.CallRecord;
import io.mcpledger.domain.session.CallRecords;
import io.mcpledger.domain.session.ClientFold;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.FoldException;
import io.mcpledger.domain.session.SessionFold;
import io.mcpledger.domain.session.SessionState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/** What the log says about one call (contract section 10), shared by the HTTP endpoint and the offline verifier. */
public final class Investigation {
    private final Verdict verdict;
    private final String session;
    private final String client;
    private final String requestId;
    private final List<Receipt> timeline;
    private final JsonNode capability;
    private final JsonNode grant;
    private final String policy;
    private final List<LaterCall> laterCalls;
    private final Receipt resolution;

    private record LaterCall(CallRecord call, Verdict verdict) {
    }

    private Investigation(Verdict verdict, String session, String requestId, List<Receipt> timeline, JsonNode capability,
            String policy, List<LaterCall> laterCalls, Receipt resolution) {
        this(verdict, session, null, requestId, timeline, capability, null, policy, laterCalls, resolution);
    }

    private Investigation(Verdict verdict, String session, String client, String requestId, List<Receipt> timeline,
            JsonNode capability, JsonNode grant, String policy, List<LaterCall> laterCalls, Receipt resolution) {
        this.verdict = verdict;
        this.session = session;
        this.client = client;
        this.requestId = requestId;
        this.timeline = List.copyOf(timeline);
        this.capability = capability;
        this.grant = grant;
        this.policy = policy;
        this.laterCalls = List.copyOf(laterCalls);
        this.resolution = resolution;
    }

    /**
     * Investigates requestId within ONE session, given all that session's receipts in seq order (and no
     * ledger-wide ones). A broken chain is a {@link FoldException}, as it is for every reader of the log.
     */
    public static Investigation of(List<Receipt> sessionReceipts, String requestId) {
        Objects.requireNonNull(requestId, "requestId");
        SessionState state = null;
        CallRecords calls = new CallRecords();
        for (Receipt r : sessionReceipts) {
            state = SessionFold.apply(state, r, calls);
        }
        if (state == null) {
            return notFound(null, requestId);
        }
        CallRecord call = calls.call(requestId);
        if (call == null) {
            return notFound(state.id(), requestId);
        }
        String current = state.incarnation();
        Receipt decision = call.decision();
        // A receipt's body is parsed from its line on every read: read each decision's body once.
        JsonNode asked = decision.body();
        List<Receipt> timeline = sessionReceipts.stream().filter(r -> requestId.equals(r.request())).toList();
        List<LaterCall> later = laterCalls(calls, decision, asked, current);
        return new Investigation(verdictOf(call, current), state.id(), requestId, timeline,
                issuedCapability(sessionReceipts, decision.seq(), text(asked, "capability")), text(asked, "policy"), later,
                call.resolutionReceipt());
    }

    /**
     * Investigates requestId within ONE client stream (contract section 15: calls made without a session), given all
     * that stream's receipts in seq order. The decision names the grant it was admitted under instead of a capability;
     * a call without an outcome is pending, as an edge's new incarnation records unknown outcomes as receipts.
     */
    public static Investigation ofClient(List<Receipt> clientReceipts, String requestId) {
        Objects.requireNonNull(requestId, "requestId");
        ClientState state = null;
        CallRecords calls = new CallRecords();
        for (Receipt r : clientReceipts) {
            state = ClientFold.apply(state, r, calls);
        }
        if (state == null) {
            return notFound(null, requestId);
        }
        CallRecord call = calls.call(requestId);
        if (call == null) {
            return new Investigation(Verdict.NOT_FOUND, null, state.tokenRef(), requestId, List.of(), null, null, null,
                    List.of(), null);
        }
        Receipt decision = call.decision();
        JsonNode asked = decision.body();
        List<Receipt> timeline = clientReceipts.stream().filter(r -> requestId.equals(r.request())).toList();
        List<LaterCall> later = laterCalls(calls, decision, asked, null);
        JsonNode grant = asked.get("grant");
        return new Investigation(verdictOf(call, call.incarnation()), null, state.tokenRef(), requestId, timeline, null,
                grant == null ? null : grant.deepCopy(), text(asked, "policy"), later, call.resolutionReceipt());
    }

    /**
     * The stream's decisions after {@code decision} with the same tool and arguments, in seq order, each with its
     * verdict: a pending one is judged against the session's {@code current} incarnation, or, in a client stream
     * ({@code current} null), stays pending until an edge's new incarnation records its outcome.
     */
    private static List<LaterCall> laterCalls(CallRecords calls, Receipt decision, JsonNode asked, String current) {
        List<LaterCall> later = new ArrayList<>();
        for (CallRecord other : calls.all()) {
            if (other.decision().seq() > decision.seq() && sameToolAndArguments(other.decision().body(), asked)) {
                later.add(new LaterCall(other, verdictOf(other, current == null ? other.incarnation() : current)));
            }
        }
        later.sort(Comparator.comparingLong(c -> c.call().decision().seq()));
        return later;
    }

    /** The not_found answer when no session used requestId (session may be null). */
    public static Investigation notFound(String session, String requestId) {
        Objects.requireNonNull(requestId, "requestId");
        return new Investigation(Verdict.NOT_FOUND, session, requestId, List.of(), null, null, List.of(), null);
    }

    public Verdict verdict() {
        return verdict;
    }

    /**
     * {@code {"verdict", "session"? or "client"?, "requestId", "timeline": [R...], "capability"? or "grant"?,
     * "policy"?, "laterCalls": [...], "resolution"?}}, a fresh tree on every call; each R is the receipt's own JCS
     * object.
     */
    public ObjectNode toJson() {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("verdict", verdict.wire());
        if (session != null) {
            node.put("session", session);
        }
        if (client != null) {
            node.put("client", client);
        }
        node.put("requestId", requestId);
        ArrayNode receipts = node.putArray("timeline");
        timeline.forEach(r -> receipts.add(r.toJson()));
        if (capability != null) {
            node.set("capability", capability.deepCopy());
        }
        if (grant != null) {
            node.set("grant", grant.deepCopy());
        }
        if (policy != null) {
            node.put("policy", policy);
        }
        ArrayNode later = node.putArray("laterCalls");
        for (LaterCall c : laterCalls) {
            Receipt decision = c.call().decision();
            ObjectNode entry = later.addObject();
            entry.put("requestId", c.call().requestId());
            entry.put("decision", c.call().admitted() ? "admitted" : "refused");
            entry.put("verdict", c.verdict().wire());
            entry.put("at", Timestamps.format(decision.at()));
            entry.put("receipt", decision.id());
        }
        if (resolution != null) {
            ObjectNode res = node.putObject("resolution");
            JsonNode settled = resolution.body();
            res.put("status", settled.path("status").asText());
            String note = text(settled, "note");
            if (note != null) {
                res.put("note", note);
            }
            res.put("receipt", resolution.id());
        }
        return node;
    }

    private static Verdict verdictOf(CallRecord call, String currentIncarnation) {
        if (!call.admitted()) {
            return Verdict.REFUSED;
        }
        if (call.resolution() != null) {
            return switch (call.resolution()) {
                case "ok" -> Verdict.COMPLETED_OK;
                case "error" -> Verdict.COMPLETED_ERROR;
                case "not_run" -> Verdict.NOT_RUN;
                default -> throw new FoldException("request " + call.requestId() + " is resolved with status '"
                        + call.resolution() + "'; only ok, error and not_run settle a call");
            };
        }
        return switch (call.outcome()) {
            case OK -> Verdict.COMPLETED_OK;
            case ERROR -> Verdict.COMPLETED_ERROR;
            case UNKNOWN -> Verdict.OUTCOME_UNKNOWN;
            // A resume by another incarnation records the unknown outcome itself; this also covers a log
            // cut between that resume and its outcome receipt (replay --upto, a bundle taken mid-append).
            case PENDING -> Objects.equals(call.incarnation(), currentIncarnation) ? Verdict.PENDING
                    : Verdict.OUTCOME_UNKNOWN;
        };
    }

    /** The capability named by the decision, as the initialize or resume before it issued it; null if none did. */
    private static JsonNode issuedCapability(List<Receipt> receipts, long decisionSeq, String id) {
        if (id == null) {
            return null;
        }
        for (Receipt r : receipts) {
            if (r.seq() >= decisionSeq) {
                break;
            }
            if (r.kind() != ReceiptKind.SESSION_INITIALIZED && r.kind() != ReceiptKind.SESSION_RESUMED) {
                continue;
            }
            JsonNode capability = r.body().get("capability");
            if (capability != null && id.equals(text(capability, "id"))) {
                return capability;
            }
        }
        return null;
    }

    private static boolean sameToolAndArguments(JsonNode body, JsonNode other) {
        return body.path("tool").equals(other.path("tool"))
                && body.path("argumentsSha256").equals(other.path("argumentsSha256"));
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null ? null : v.asText();
    }
}
