package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.metrics.LedgerMetrics;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.session.Answer;
import io.mcpledger.domain.session.ClientAnswer;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.RecordClientOutcome;
import io.mcpledger.domain.session.RequestClientCall;
import io.mcpledger.domain.session.ResolveClientCall;
import io.mcpledger.domain.session.TokenRefs;
import io.mcpledger.query.LedgerProjector;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The sessionless endpoints of contract section 15: calls made under MCP {@code 2026-07-28}, which has no sessions,
 * each in the stream of its client token; their outcomes and resolutions; an edge's new incarnation; a client's object
 * C. As with sessions, every decision is the client stream's aggregate's, and an answer is sent only once the receipts
 * it carries are committed.
 */
@Requires(notEnv = Environments.EDGE)
@Controller(value = "/v1", consumes = MediaType.ALL)
class ClientController {
    private static final Set<String> CALL = Set.of("requestId", "principal", "serverId", "protocolVersion",
            "clientInfo", "edge", "server", "tool", "operation", "argumentsSha256", "jsonrpcId");
    private static final Set<String> INCARNATION = Set.of("incarnation");

    private final LedgerEngine ledger;
    private final LedgerProjector projection;
    private final LedgerMetrics metrics;

    ClientController(LedgerEngine ledger, LedgerMetrics metrics) {
        this.ledger = ledger;
        this.projection = ledger.projector();
        this.metrics = metrics;
    }

    @EdgeEndpoint
    @Post("/calls")
    CompletableFuture<HttpResponse<byte[]>> call(@Nullable @Header(SessionController.CLIENT_TOKEN) String clientToken,
                                                 @Body @Bindable(defaultValue = "") byte[] bytes) {
        long arrived = System.nanoTime();
        RequestClientCall command = callCommand(ledger, clientToken, bytes);
        return Replies.later(ledger.commands().send(command),
                (Answer a) -> SessionController.callReply(a, command.requestId(), arrived, metrics));
    }

    /**
     * The command of a sessionless call, from its {@code Client-Token-Sha256} header and its body; refuses what the
     * contract refuses (a {@code LedgerException}). Shared with {@link DirectCalls}, which serves most calls.
     */
    static RequestClientCall callCommand(LedgerEngine ledger, @Nullable String clientToken, byte[] bytes) {
        String token = SessionController.clientToken(clientToken);
        RequestBody body = RequestBody.parse(bytes, CALL);
        Edge edge = SessionController.edge(body);
        if (edge == null) {
            throw RequestBody.invalid("field edge is required for a call without a session: {\"id\", \"incarnation\"},"
                    + " so that the edge's next incarnation settles the calls it leaves pending");
        }
        return new RequestClientCall(token, body.identifier("requestId"), body.identifier("principal"),
                body.identifier("serverId"), body.text("protocolVersion", true), SessionController.clientInfo(body),
                edge, body.identifier("server"), body.identifier("tool"), body.identifier("operation"),
                body.hex("argumentsSha256", 64, true), body.jsonRpcId("jsonrpcId", Identifiers.MAX_LENGTH),
                ledger.now());
    }

    @EdgeEndpoint
    @Post("/calls/{requestId:[^/]++}/outcome")
    CompletableFuture<HttpResponse<byte[]>> outcome(HttpRequest<?> request,
                                                    @Nullable @Header(SessionController.CLIENT_TOKEN) String clientToken,
                                                    @Body @Bindable(defaultValue = "") byte[] bytes) {
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 2));
        String token = SessionController.clientToken(clientToken);
        SessionController.OutcomeBody outcome = SessionController.OutcomeBody.parse(bytes);
        RecordClientOutcome command = new RecordClientOutcome(token, requestId, outcome.status(),
                outcome.resultSha256(), outcome.detail(), ledger.now());
        return Replies.later(ledger.commands().send(command),
                (ClientAnswer a) -> SessionController.receiptOnly(a.receipt()));
    }

    @Post("/calls/{requestId:[^/]++}/resolution")
    CompletableFuture<HttpResponse<byte[]>> resolution(HttpRequest<?> request, @Nullable @QueryValue String client,
                                                       @Body @Bindable(defaultValue = "") byte[] bytes) {
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 2));
        String tokenRef = tokenRef("query parameter client", client);
        SessionController.ResolutionBody resolution = SessionController.ResolutionBody.parse(bytes);
        ResolveClientCall command = new ResolveClientCall(tokenRef, requestId, resolution.status(), resolution.note(),
                ledger.now());
        return Replies.later(ledger.commands().send(command),
                (ClientAnswer a) -> SessionController.receiptOnly(a.receipt()));
    }

    /**
     * An edge's new incarnation: every sessionless call the edge admitted under another incarnation and left without an
     * outcome is marked {@code unknown}; the answer lists those receipts, whichever clients they belong to.
     */
    @EdgeEndpoint
    @Post("/edges/{edgeId:[^/]++}/incarnations")
    @ExecuteOn(TaskExecutors.BLOCKING)
    CompletableFuture<HttpResponse<byte[]>> incarnation(HttpRequest<?> request,
                                                        @Body @Bindable(defaultValue = "") byte[] bytes) {
        String edgeId = RequestBody.requireIdentifier("edge id", PathSegments.segment(request, 2));
        String incarnation = RequestBody.parse(bytes, INCARNATION).identifier("incarnation");
        return ledger.announceIncarnation(edgeId, incarnation).thenApply(receipts -> {
            ObjectNode reply = Replies.object();
            ArrayNode unknown = reply.putArray("unknown");
            receipts.forEach(r -> unknown.add(r.toJson()));
            return Replies.ok(reply);
        });
    }

    /**
     * The client object C of a tokenRef. An edge reads only its own client's: the {@code Client-Token-Sha256} it sends
     * must be the token of that tokenRef, else {@code 404 client_not_found}, as for a tokenRef without a stream.
     */
    @EdgeEndpoint
    @Get("/clients/{tokenRef:[^/]++}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> client(HttpRequest<?> request,
                                @Nullable @Header(SessionController.CLIENT_TOKEN) String clientToken) {
        String tokenRef = tokenRef("tokenRef", PathSegments.segment(request, 2));
        boolean edge = AuthFilter.byEdge(request);
        if ((edge || clientToken != null)
                && !TokenRefs.of(SessionController.clientToken(clientToken)).equals(tokenRef)) {
            throw clientNotFound();
        }
        ledger.follow();
        return projection.clientView(tokenRef).<HttpResponse<byte[]>>map(Replies::ok)
                .orElseThrow(ClientController::clientNotFound);
    }

    static String tokenRef(String what, String value) {
        if (value == null) {
            throw RequestBody.invalid(what + " is required: the client's tokenRef, 64 lowercase hex characters");
        }
        if (!Hex.isLowerHex(value, 64)) {
            throw RequestBody.invalid(what + " must be a tokenRef: 64 lowercase hex characters");
        }
        return value;
    }

    private static LedgerException clientNotFound() {
        return new LedgerException(ErrorCode.CLIENT_NOT_FOUND, "client not found");
    }
}
