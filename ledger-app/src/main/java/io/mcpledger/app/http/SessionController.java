package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.engine.SessionCap;
import io.mcpledger.app.metrics.LedgerMetrics;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.Answer;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.ClientInfo;
import io.mcpledger.domain.session.DeleteSession;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.ErrorAnswer;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RecordOutcome;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.ResolveCall;
import io.mcpledger.domain.session.ResumeSession;
import io.mcpledger.domain.session.RevokeCapability;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.TokenRefs;
import io.mcpledger.query.LedgerProjector;
import io.mcpledger.query.SessionPage;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The session endpoints of contract section 4. Controllers only read and check the request, send one command and
 * render its answer: every decision is the session aggregate's, and an answer is sent only after the receipts
 * it carries are committed.
 */
@Requires(notEnv = Environments.EDGE)
@Controller(value = "/v1/sessions", consumes = MediaType.ALL)
class SessionController {
    // Path variables use {name:[^/]++}: Micronaut's default pattern stops at '+', '&' and ';', which are
    // visible ASCII and so legal in every identifier (a requestId "r+1" must reach its outcome endpoint). The
    // quantifier is possessive: a segment can never end anywhere but at a '/' or the path's end, so giving
    // characters back cannot make a route match, and each route that does not match (every POST of a session
    // is tried against all five) fails without walking back over the whole id (docs/benchmarks.md, section 8).
    static final String CLIENT_TOKEN = "Client-Token-Sha256";
    static final int DEFAULT_PAGE = 100;
    static final int MAX_PAGE = 1000;

    private static final Set<String> INITIALIZE = Set.of("principal", "serverId", "protocolVersion", "clientInfo", "edge");
    private static final Set<String> RESUME = Set.of("protocolVersion", "edge");
    private static final Set<String> EDGE = Set.of("id", "incarnation");
    private static final Set<String> CLIENT_INFO = Set.of("name", "version");
    private static final Set<String> CALL = Set.of("requestId", "server", "tool", "operation", "argumentsSha256", "jsonrpcId");
    private static final Set<String> OUTCOME = Set.of("status", "resultSha256", "detail");
    private static final Set<String> RESOLUTION = Set.of("status", "note");

    private final LedgerEngine ledger;
    private final LedgerProjector projection;
    private final SessionCap cap;
    private final LedgerMetrics metrics;

    SessionController(LedgerEngine ledger, SessionCap cap, LedgerMetrics metrics) {
        this.ledger = ledger;
        this.projection = ledger.projector();
        this.cap = cap;
        this.metrics = metrics;
    }

    @EdgeEndpoint
    @Post
    CompletableFuture<HttpResponse<byte[]>> initialize(@Nullable @Header(CLIENT_TOKEN) String clientToken,
                                                       @Body @Bindable(defaultValue = "") byte[] bytes) {
        String token = clientToken(clientToken);
        RequestBody body = RequestBody.parse(bytes, INITIALIZE);
        String principal = body.identifier("principal");
        String serverId = body.identifier("serverId");
        String protocolVersion = body.text("protocolVersion", true);
        ClientInfo clientInfo = clientInfo(body);
        Edge edge = edge(body);
        if (!cap.tryReserve()) {
            throw SessionCap.reached(cap.max());
        }
        String id = SessionIds.issue(token, RandomIds.sessionRandom());
        CompletableFuture<SessionAnswer> answer;
        try {
            answer = ledger.commands().send(new InitializeSession(id, token, principal, serverId, protocolVersion,
                    clientInfo, edge, ledger.now()));
        } catch (RuntimeException e) {
            cap.release();
            throw e;
        }
        return Replies.later(answer.whenComplete((a, failure) -> cap.release()), a -> Replies.json(201, session(a)));
    }

    @EdgeEndpoint
    @Post("/{id:[^/]++}/resume")
    CompletableFuture<HttpResponse<byte[]>> resume(HttpRequest<?> request, @Nullable @Header(CLIENT_TOKEN) String clientToken,
                                                   @Body @Bindable(defaultValue = "") byte[] bytes) {
        String id = sessionId(request);
        String token = clientToken(clientToken);
        RequestBody body = RequestBody.parseOptional(bytes, RESUME);
        String protocolVersion = body.text("protocolVersion", false);
        Edge edge = edge(body);
        return Replies.later(ledger.commands().send(new ResumeSession(id, token, protocolVersion, edge, ledger.now())),
                (Answer a) -> a instanceof SessionAnswer s ? Replies.ok(session(s)) : errorAnswer(a));
    }

    @EdgeEndpoint
    @Post("/{id:[^/]++}/calls")
    CompletableFuture<HttpResponse<byte[]>> call(HttpRequest<?> request, @Nullable @Header(CLIENT_TOKEN) String clientToken,
                                                 @Body @Bindable(defaultValue = "") byte[] bytes) {
        long arrived = System.nanoTime();
        RequestCall command = callCommand(ledger, PathSegments.segment(request, 2), clientToken, bytes);
        return Replies.later(ledger.commands().send(command),
                (Answer a) -> callReply(a, command.requestId(), arrived, metrics));
    }

    /**
     * The command of an admission request, from its path's session id (decoded), its {@value #CLIENT_TOKEN} header and
     * its body; refuses a malformed one with a {@link LedgerException} before anything is sent. Shared with
     * {@link DirectCalls}.
     */
    static RequestCall callCommand(LedgerEngine ledger, String pathSessionId, @Nullable String clientToken,
                                   byte[] bytes) {
        String sessionId = sessionId(pathSessionId);
        String token = clientToken(clientToken);
        RequestBody body = RequestBody.parse(bytes, CALL);
        return new RequestCall(sessionId, token, body.identifier("requestId"), body.identifier("server"),
                body.identifier("tool"), body.identifier("operation"), body.hex("argumentsSha256", 64, true),
                body.jsonRpcId("jsonrpcId", Identifiers.MAX_LENGTH), ledger.now());
    }

    /** The answer to the call {@code requestId}, decided {@code a}, timed from {@code arrived}. */
    static HttpResponse<byte[]> callReply(Answer a, String requestId, long arrived, LedgerMetrics metrics) {
        ObjectNode decided = callDecision(a, requestId, arrived, metrics);
        return decided != null ? Replies.ok(decided) : errorAnswer(a);
    }

    /**
     * The body of a 200 answer to the call {@code requestId} when {@code a} is its decision, timed from {@code
     * arrived}, or null when {@code a} is an error answer ({@link #errorAnswer}); shared by the sessionless call and
     * DirectCalls.
     */
    static ObjectNode callDecision(Answer a, String requestId, long arrived, LedgerMetrics metrics) {
        if (!(a instanceof CallAnswer decision)) {
            return null;
        }
        metrics.decided(decision.admitted() ? null : decision.refusal().code(), System.nanoTime() - arrived);
        return decision(decision, requestId);
    }

    /**
     * The answer to an admission request (contract sections 4 and 15): {@code {"decision": "admitted", "callId",
     * "capabilityId"?, "receipt"}} or {@code {"decision": "refused", "reason", "receipt"}}; a call without a session
     * names no capability (its receipt names the grant).
     */
    static ObjectNode decision(CallAnswer decision, String requestId) {
        ObjectNode reply = Replies.object();
        if (decision.admitted()) {
            reply.put("decision", "admitted");
            reply.put("callId", requestId);
            if (decision.capabilityId() != null) {
                reply.put("capabilityId", decision.capabilityId());
            }
        } else {
            reply.put("decision", "refused");
            reply.set("reason", decision.refusal().toJson());
        }
        return Replies.putReceipt(reply, "receipt", decision.receipt());
    }

    @EdgeEndpoint
    @Post("/{id:[^/]++}/calls/{requestId:[^/]++}/outcome")
    CompletableFuture<HttpResponse<byte[]>> outcome(HttpRequest<?> request,
                                                    @Nullable @Header(CLIENT_TOKEN) String clientToken,
                                                    @Body @Bindable(defaultValue = "") byte[] bytes) {
        String id = sessionId(request);
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 4));
        String token = clientToken(clientToken);
        OutcomeBody outcome = OutcomeBody.parse(bytes);
        RecordOutcome command = new RecordOutcome(id, token, requestId, outcome.status(), outcome.resultSha256(),
                outcome.detail(), ledger.now());
        return Replies.later(ledger.commands().send(command), (SessionAnswer a) -> receiptOnly(a.receipt()));
    }

    @Post("/{id:[^/]++}/calls/{requestId:[^/]++}/resolution")
    CompletableFuture<HttpResponse<byte[]>> resolution(HttpRequest<?> request,
                                                       @Body @Bindable(defaultValue = "") byte[] bytes) {
        String id = sessionId(request);
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 4));
        ResolutionBody resolution = ResolutionBody.parse(bytes);
        ResolveCall command = new ResolveCall(id, requestId, resolution.status(), resolution.note(), ledger.now());
        return Replies.later(ledger.commands().send(command), (SessionAnswer a) -> receiptOnly(a.receipt()));
    }

    @EdgeEndpoint
    @Delete("/{id:[^/]++}")
    CompletableFuture<HttpResponse<byte[]>> delete(HttpRequest<?> request, @Nullable @Header(CLIENT_TOKEN) String clientToken) {
        String id = sessionId(request);
        String token = clientToken(clientToken);
        return Replies.later(ledger.commands().send(new DeleteSession(id, token, ledger.now())),
                (SessionAnswer a) -> receiptOnly(a.receipt()));
    }

    @Post("/{id:[^/]++}/revoke")
    CompletableFuture<HttpResponse<byte[]>> revoke(HttpRequest<?> request, @Body @Bindable(defaultValue = "") byte[] bytes) {
        String id = sessionId(request);
        RequestBody.parseOptional(bytes, Set.of());
        return revokeCapability(ledger, id, null);
    }

    /** Renders a capability revocation; shared with {@code POST /v1/capabilities/{id}/revoke}. */
    static CompletableFuture<HttpResponse<byte[]>> revokeCapability(LedgerEngine ledger, String sessionId, String capabilityId) {
        return Replies.later(ledger.commands().send(new RevokeCapability(sessionId, capabilityId, ledger.now())),
                (SessionAnswer a) -> {
                    ObjectNode reply = Replies.object();
                    reply.put("capabilityId", a.receipt().body().path("capability").asText());
                    reply.put("revoked", true);
                    return Replies.ok(Replies.putReceipt(reply, "receipt", a.receipt()));
                });
    }

    /**
     * The session object S. A session idle past its expiry is expired first (appending {@code session.expired}
     * once), so what is read is never stale. An edge names its client with {@code Client-Token-Sha256}, as on every
     * session-scoped request, and an id not issued to that token is 404; auditors and operators read any session.
     */
    @EdgeEndpoint
    @Get("/{id:[^/]++}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    CompletableFuture<HttpResponse<byte[]>> get(HttpRequest<?> request, @Nullable @Header(CLIENT_TOKEN) String clientToken) {
        String id = sessionId(request);
        boolean edge = AuthFilter.byEdge(request);
        if ((edge || clientToken != null) && !SessionIds.isIssuedTo(id, clientToken(clientToken))) {
            throw notFound();
        }
        return ledger.expireIfIdle(id).thenApply(done -> projection.sessionView(id)
                .<HttpResponse<byte[]>>map(Replies::ok)
                .orElseGet(() -> Failures.toResponse(notFound())));
    }

    /**
     * A page of sessions by id. An edge lists only its own client's: it must send {@code Client-Token-Sha256}, and
     * sees the sessions issued to that token (contract section 4); auditors and operators list every session, or one
     * client's when they send the header.
     */
    @EdgeEndpoint
    @Get
    @ExecuteOn(TaskExecutors.BLOCKING)
    CompletableFuture<HttpResponse<byte[]>> list(HttpRequest<?> request, @Nullable @QueryValue String state,
                                                 @Nullable @QueryValue String after, @Nullable @QueryValue String limit,
                                                 @Nullable @Header(CLIENT_TOKEN) String clientToken) {
        if (state != null && !state.equals("active")) {
            throw RequestBody.invalid("query parameter state must be \"active\" or absent, got \"" + state + "\"");
        }
        if (after != null) {
            RequestBody.requireIdentifier("query parameter after", after);
        }
        int size = pageSize(limit);
        boolean activeOnly = state != null;
        boolean edge = AuthFilter.byEdge(request);
        String tokenRef = edge || clientToken != null ? TokenRefs.of(clientToken(clientToken)) : null;
        return ledger.expireIdleSessions().thenApply(done -> {
            SessionPage page = projection.sessions(activeOnly, after, size, tokenRef);
            ObjectNode reply = Replies.object();
            ArrayNode sessions = reply.putArray("sessions");
            page.sessions().forEach(sessions::add);
            if (page.next() != null) {
                reply.put("next", page.next());
            }
            return Replies.ok(reply);
        });
    }

    static int pageSize(String limit) {
        if (limit == null) {
            return DEFAULT_PAGE;
        }
        try {
            int n = Integer.parseInt(limit);
            if (n >= 1 && n <= MAX_PAGE) {
                return n;
            }
        } catch (NumberFormatException e) {
            // Refused below with the allowed range.
        }
        throw RequestBody.invalid("query parameter limit must be an integer from 1 to " + MAX_PAGE + ", got \"" + limit + "\"");
    }

    /** The optional {@code edge} object {@code {"id", "incarnation"}}, or null. */
    static Edge edge(RequestBody body) {
        RequestBody edge = body.object("edge", EDGE);
        return edge == null ? null : new Edge(edge.identifier("id"), edge.identifier("incarnation"));
    }

    /** The optional {@code clientInfo} object {@code {"name", "version"}}, or null. */
    static ClientInfo clientInfo(RequestBody body) {
        RequestBody info = body.object("clientInfo", CLIENT_INFO);
        return info == null ? null : new ClientInfo(info.text("name", RequestBody.MAX_CLIENT_TEXT, true),
                info.text("version", RequestBody.MAX_CLIENT_TEXT, true));
    }

    /** An outcome's body, as calls in sessions and without take it. */
    record OutcomeBody(String status, String resultSha256, String detail) {
        static OutcomeBody parse(byte[] bytes) {
            RequestBody body = RequestBody.parse(bytes, OUTCOME);
            return new OutcomeBody(body.oneOf("status", List.of("ok", "error", "unknown"), true),
                    body.hex("resultSha256", 64, false), body.text("detail", RequestBody.MAX_NOTE, false));
        }
    }

    /** A resolution's body, as calls in sessions and without take it. */
    record ResolutionBody(String status, String note) {
        static ResolutionBody parse(byte[] bytes) {
            RequestBody body = RequestBody.parse(bytes, RESOLUTION);
            return new ResolutionBody(body.oneOf("status", List.of("ok", "error", "not_run"), true),
                    body.text("note", RequestBody.MAX_NOTE, true));
        }
    }

    /** The session id of a {@code /v1/sessions/{id}...} path. */
    static String sessionId(HttpRequest<?> request) {
        return sessionId(PathSegments.segment(request, 2));
    }

    /** A path's session id segment (decoded) as a session id; refused when it is not an identifier. */
    private static String sessionId(String pathSegment) {
        return RequestBody.requireIdentifier("session id", pathSegment);
    }

    static String clientToken(String header) {
        if (header == null) {
            throw RequestBody.invalid("header " + CLIENT_TOKEN + " is required: the SHA-256 of the MCP client's bearer token");
        }
        if (!Hex.isLowerHex(header, 64)) {
            throw RequestBody.invalid("header " + CLIENT_TOKEN + " must be 64 lowercase hex characters");
        }
        return header;
    }

    private static LedgerException notFound() {
        return new LedgerException(ErrorCode.SESSION_NOT_FOUND, "session not found");
    }

    private static ObjectNode session(SessionAnswer answer) {
        ObjectNode reply = Replies.object();
        reply.set("session", answer.session());
        return Replies.putReceipt(reply, "receipt", answer.receipt());
    }

    static HttpResponse<byte[]> receiptOnly(Receipt receipt) {
        return Replies.ok(Replies.putReceipt(Replies.object(), "receipt", receipt));
    }

    static HttpResponse<byte[]> errorAnswer(Answer answer) {
        ErrorAnswer error = (ErrorAnswer) answer;
        return Replies.error(error.code(), error.message(), error.receipt());
    }
}
