package io.mcpledger.domain.session;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.policy.Grant;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * One client stream (contract section 15): the calls a client makes without a session, under MCP {@code 2026-07-28},
 * keyed by its tokenRef. Every rule of that section is decided here, with the call rules sessions share
 * ({@link CallChecks}); the sourcing handler folds each receipt with {@link ClientFold}, the fold the projections and
 * the verifier use. Time comes from the command, never from a clock.
 */
public class ClientAggregate {
    /** The stream's name, {@link ClientStreams#stream}. */
    @AggregateIdentifier
    private String stream;
    private ClientState state;
    /** The calls this instance changed and has not seen committed, over the committed ones it reads from history. */
    private transient SessionCalls calls;
    private transient boolean forgetScheduled;

    protected ClientAggregate() {
        // Axon creates the instance and sources it from the stream's events, or a new one for a first call.
    }

    /** The aggregate as a snapshot of its state, as the ledger loads it from the projections. */
    public static ClientAggregate restored(ClientState state) {
        ClientAggregate aggregate = new ClientAggregate();
        aggregate.stream = ClientStreams.stream(state.tokenRef());
        aggregate.state = state;
        aggregate.calls = SessionCalls.ofClient(state.tokenRef());
        return aggregate;
    }

    /** The state decisions are made on; null before the stream's first receipt. */
    public ClientState state() {
        return state;
    }

    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public Answer handle(RequestClientCall cmd, LedgerContext ctx) {
        String tokenRef = cmd.tokenRef();
        readHistory(tokenRef, ctx);
        ProtocolVersions.requireSessionless(cmd.protocolVersion());
        if (state != null && !state.principal().equals(cmd.principal())) {
            throw new LedgerException(ErrorCode.PRINCIPAL_CONFLICT, "this client token stands for principal "
                    + state.principal() + ", not " + cmd.principal() + ": a token's calls keep the principal of its"
                    + " first call");
        }
        CallRecord earlier = calls.call(cmd.requestId());
        if (ctx.authority().isPrincipalRevoked(tokenRef)) {
            Reason reason = Reason.tokenRevoked();
            Receipt repeated = CallChecks.earlierRefusal(earlier, reason);
            Optional<PolicyDocument> policy = ctx.authority().activePolicy();
            return new ErrorAnswer(ErrorCode.TOKEN_REVOKED, reason.message(),
                    repeated != null ? repeated : refuse(ctx, cmd, policy, reason));
        }
        if (earlier != null) {
            return CallChecks.repeat(earlier, cmd.server(), cmd.tool(), cmd.operation(), cmd.argumentsSha256(),
                    "this client's calls");
        }
        Optional<PolicyDocument> policy = ctx.authority().activePolicy();
        Grant grant = policy.flatMap(p -> p.grantsFor(cmd.principal(), cmd.at()).stream()
                .filter(g -> g.covers(cmd.server(), cmd.tool(), cmd.operation())).findFirst()).orElse(null);
        if (grant == null) {
            Reason reason = Reason.notInScope(cmd.tool(), cmd.server());
            return new CallAnswer(refuse(ctx, cmd, policy, reason), reason, null);
        }
        ObjectNode body = callBody(cmd, policy);
        body.set("grant", grant.toJson());
        Receipt receipt = sign(ctx, tokenRef, ReceiptKind.CALL_ADMITTED, cmd.at(), cmd.requestId(), body);
        apply(new ClientEvent(tokenRef, receipt));
        return new CallAnswer(receipt, null, null);
    }

    /** Created when missing only to answer {@code 404 call_not_found}: a stream without calls has nothing to settle. */
    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public ClientAnswer handle(RecordClientOutcome cmd, LedgerContext ctx) {
        readHistory(cmd.tokenRef(), ctx);
        CallRecord call = admittedCall(cmd.requestId());
        ObjectNode body = CallChecks.outcome(call, cmd.status(), cmd.resultSha256(), cmd.detail());
        if (body == null) {
            return new ClientAnswer(call.outcomeReceipt(), state.toJson());
        }
        Receipt receipt = sign(ctx, cmd.tokenRef(), ReceiptKind.CALL_OUTCOME, cmd.at(), cmd.requestId(), body);
        apply(new ClientEvent(cmd.tokenRef(), receipt));
        return new ClientAnswer(receipt, state.toJson());
    }

    /** Created when missing only to answer {@code 404 call_not_found}: a stream without calls has nothing to settle. */
    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public ClientAnswer handle(ResolveClientCall cmd, LedgerContext ctx) {
        readHistory(cmd.tokenRef(), ctx);
        CallRecord call = admittedCall(cmd.requestId());
        ObjectNode body = CallChecks.resolution(call, cmd.status(), cmd.note());
        Receipt receipt = sign(ctx, cmd.tokenRef(), ReceiptKind.CALL_RESOLVED, cmd.at(), cmd.requestId(), body);
        apply(new ClientEvent(cmd.tokenRef(), receipt));
        return new ClientAnswer(receipt, state.toJson());
    }

    /**
     * Gives every call of this stream that edge {@code cmd.edgeId()} admitted under another incarnation, and that has no
     * outcome, the outcome {@code unknown}; answers the receipts it appended, in the order the calls were admitted.
     */
    @CommandHandler
    public List<Receipt> handle(SettleEdgeCalls cmd, LedgerContext ctx) {
        readHistory(cmd.tokenRef(), ctx);
        List<Receipt> settled = new ArrayList<>();
        for (CallRecord call : calls.pending()) {
            Edge edge = Edge.fromJson(call.decision().body().get("edge"));
            if (edge == null || !cmd.edgeId().equals(edge.id()) || Objects.equals(cmd.incarnation(), edge.incarnation())) {
                continue;
            }
            ObjectNode body = CallChecks.unknown("admitted through edge " + cmd.edgeId() + " by incarnation "
                    + edge.incarnation() + "; the edge announced incarnation " + cmd.incarnation()
                    + " before an outcome was recorded");
            Receipt receipt = sign(ctx, cmd.tokenRef(), ReceiptKind.CALL_OUTCOME, cmd.at(), call.requestId(), body);
            apply(new ClientEvent(cmd.tokenRef(), receipt));
            settled.add(receipt);
        }
        return settled;
    }

    @EventSourcingHandler
    void on(ClientEvent event) {
        if (stream == null) {
            stream = ClientStreams.stream(event.tokenRef());
        }
        if (calls == null) {
            calls = SessionCalls.ofClient(event.tokenRef());
        }
        state = ClientFold.apply(state, event.receipt(), calls);
        forgetCallsOnceCommitted();
    }

    /** As a session aggregate does: the calls in memory are let go once the unit of work that applied them commits. */
    private void forgetCallsOnceCommitted() {
        if (!forgetScheduled && CurrentUnitOfWork.isStarted()) {
            forgetScheduled = true;
            CurrentUnitOfWork.get().afterCommit(u -> {
                forgetScheduled = false;
                calls.forget();
            });
        }
    }

    private void readHistory(String tokenRef, LedgerContext ctx) {
        if (calls == null) {
            calls = SessionCalls.ofClient(tokenRef);
        }
        calls.readFrom(ctx.history());
    }

    private CallRecord admittedCall(String requestId) {
        return CallChecks.admitted(calls.call(requestId), requestId, "this client's calls");
    }

    /** Appends the {@code call.refused} receipt of a request, whichever check refused it. */
    private Receipt refuse(LedgerContext ctx, RequestClientCall cmd, Optional<PolicyDocument> policy, Reason reason) {
        ObjectNode body = callBody(cmd, policy);
        body.set("reason", reason.toJson());
        Receipt receipt = sign(ctx, cmd.tokenRef(), ReceiptKind.CALL_REFUSED, cmd.at(), cmd.requestId(), body);
        apply(new ClientEvent(cmd.tokenRef(), receipt));
        return receipt;
    }

    /** The decision's body of contract section 15, without the grant and the reason. */
    private static ObjectNode callBody(RequestClientCall cmd, Optional<PolicyDocument> policy) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", cmd.principal());
        body.put("serverId", cmd.serverId());
        body.put("protocolVersion", cmd.protocolVersion());
        if (cmd.clientInfo() != null) {
            body.set("clientInfo", cmd.clientInfo().toJson());
        }
        body.set("edge", cmd.edge().toJson());
        body.put("server", cmd.server());
        body.put("tool", cmd.tool());
        body.put("operation", cmd.operation());
        body.put("argumentsSha256", cmd.argumentsSha256());
        if (cmd.jsonrpcId() != null) {
            body.set("jsonrpcId", cmd.jsonrpcId().json());
        }
        policy.ifPresent(p -> body.put("policy", p.hash()));
        return body;
    }

    private Receipt sign(LedgerContext ctx, String tokenRef, ReceiptKind kind, Instant at, String request,
                         ObjectNode body) {
        long seq = state == null ? 1 : state.seq() + 1;
        String prev = state == null ? null : state.head();
        return ctx.signer().sign(ReceiptDraft.inClient(ctx.ids().receiptId(at), kind, at, tokenRef, seq, prev, request,
                body));
    }
}
