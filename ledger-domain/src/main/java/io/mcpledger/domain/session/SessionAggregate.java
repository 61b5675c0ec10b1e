package io.mcpledger.domain.session;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.ledger.SessionView;
import io.mcpledger.domain.policy.Grant;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * One MCP session: every rule of contract section 4 is decided here, and every decision that appends is a
 * signed receipt carried by the event. Handlers decide and throw ({@link LedgerException}: nothing
 * appended) or apply events; the sourcing handler only folds the receipt with {@link SessionFold}.
 * Time comes from the command, never from a clock.
 */
public class SessionAggregate {
    @AggregateIdentifier
    private String sessionId;
    private SessionState state;
    /** The calls this instance changed and has not seen committed, over the committed ones it reads from history. */
    private transient SessionCalls calls;
    /** The {@code capability.revoked} receipt, when this instance applied it itself (not yet readable from history). */
    private transient Receipt revocation;
    /** The capabilities this instance saw issued and has not seen committed (the history knows the others). */
    private transient Set<String> capabilities = new HashSet<>();
    private transient boolean forgetScheduled;

    protected SessionAggregate() {
        // Axon creates the instance and sources it from the session's events.
    }

    /**
     * The aggregate as a snapshot of its state: the ledger loads sessions this way, from the projections' state at the
     * session's latest receipt, so that no decision needs the session's whole history in memory.
     */
    public static SessionAggregate restored(SessionState state) {
        SessionAggregate aggregate = new SessionAggregate();
        aggregate.sessionId = state.id();
        aggregate.state = state;
        aggregate.calls = new SessionCalls(state.id());
        return aggregate;
    }

    /** The state decisions are made on; tests compare it with the projections'. */
    public SessionState state() {
        return state;
    }

    @CommandHandler
    @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
    public SessionAnswer handle(InitializeSession cmd, LedgerContext ctx) {
        if (state != null) {
            // Ids carry 128 random bits, so this is a caller reusing an id, never a collision.
            throw new IllegalStateException("session id " + cmd.sessionId() + " is already in use");
        }
        ProtocolVersions.require(cmd.protocolVersion());
        String tokenRef = TokenRefs.of(cmd.clientTokenSha256());
        if (ctx.authority().isPrincipalRevoked(tokenRef)) {
            throw new LedgerException(ErrorCode.TOKEN_REVOKED, Reason.tokenRevoked().message());
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", cmd.principal());
        body.put("tokenRef", tokenRef);
        body.put("serverId", cmd.serverId());
        body.put("protocolVersion", cmd.protocolVersion());
        putCapability(body, ctx, cmd.principal(), cmd.at());
        if (cmd.edge() != null) {
            body.set("edge", cmd.edge().toJson());
        }
        if (cmd.clientInfo() != null) {
            body.set("clientInfo", cmd.clientInfo().toJson());
        }
        Receipt receipt = sign(ctx, cmd.sessionId(), ReceiptKind.SESSION_INITIALIZED, cmd.at(), null, body);
        apply(new SessionInitialized(cmd.sessionId(), receipt));
        return new SessionAnswer(receipt, view(ctx));
    }

    @CommandHandler
    public Answer handle(ResumeSession cmd, LedgerContext ctx) {
        calls.readFrom(ctx.history());
        requireOwner(cmd.clientTokenSha256());
        requireNotDeleted();
        if (isExpired(ctx, cmd.at())) {
            return new ErrorAnswer(ErrorCode.SESSION_EXPIRED, Reason.SESSION_EXPIRED_MESSAGE, expire(ctx, cmd.at()));
        }
        if (ctx.authority().isPrincipalRevoked(state.tokenRef())) {
            throw new LedgerException(ErrorCode.TOKEN_REVOKED, Reason.tokenRevoked().message());
        }
        String version = ProtocolVersions.require(
                cmd.protocolVersion() == null ? ProtocolVersions.RESUME_DEFAULT : cmd.protocolVersion());
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("protocolVersion", version);
        if (!state.capabilityRevoked()) {
            putCapability(body, ctx, state.principal(), cmd.at());
        }
        if (cmd.edge() != null) {
            body.set("edge", cmd.edge().toJson());
        }
        String before = state.incarnation();
        Receipt resumed = sign(ctx, sessionId, ReceiptKind.SESSION_RESUMED, cmd.at(), null, body);
        apply(new SessionResumed(sessionId, resumed));
        markUnknownFromPreviousIncarnation(ctx, before, cmd.at());
        return new SessionAnswer(resumed, view(ctx));
    }

    @CommandHandler
    public Answer handle(RequestCall cmd, LedgerContext ctx) {
        calls.readFrom(ctx.history());
        requireOwner(cmd.clientTokenSha256());
        requireNotDeleted();
        if (isExpired(ctx, cmd.at())) {
            expire(ctx, cmd.at());
            return sessionLevelRefusal(ctx, cmd, ErrorCode.SESSION_EXPIRED, Reason.sessionExpired());
        }
        if (ctx.authority().isPrincipalRevoked(state.tokenRef())) {
            return sessionLevelRefusal(ctx, cmd, ErrorCode.TOKEN_REVOKED, Reason.tokenRevoked());
        }
        CallRecord earlier = calls.call(cmd.requestId());
        if (earlier != null) {
            return repeat(earlier, cmd);
        }
        Optional<PolicyDocument> policy = ctx.authority().activePolicy();
        Reason refusal = decide(cmd, policy);
        if (refusal != null) {
            return new CallAnswer(refuse(ctx, cmd, policy, refusal), refusal, state.capability().id());
        }
        ObjectNode body = callBody(cmd, state.capability().id(), policy.map(PolicyDocument::hash).orElse(null));
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.CALL_ADMITTED, cmd.at(), cmd.requestId(), body);
        apply(new CallAdmitted(sessionId, receipt));
        return new CallAnswer(receipt, null, state.capability().id());
    }

    @CommandHandler
    public SessionAnswer handle(RecordOutcome cmd, LedgerContext ctx) {
        calls.readFrom(ctx.history());
        requireOwner(cmd.clientTokenSha256());
        CallRecord call = admittedCall(cmd.requestId());
        expireIfIdle(ctx, cmd.at());
        ObjectNode body = CallChecks.outcome(call, cmd.status(), cmd.resultSha256(), cmd.detail());
        if (body == null) {
            return new SessionAnswer(call.outcomeReceipt(), view(ctx));
        }
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.CALL_OUTCOME, cmd.at(), cmd.requestId(), body);
        apply(new CallOutcomeRecorded(sessionId, receipt));
        return new SessionAnswer(receipt, view(ctx));
    }

    @CommandHandler
    public SessionAnswer handle(ResolveCall cmd, LedgerContext ctx) {
        calls.readFrom(ctx.history());
        CallRecord call = admittedCall(cmd.requestId());
        ObjectNode body = CallChecks.resolution(call, cmd.status(), cmd.note());
        expireIfIdle(ctx, cmd.at());
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.CALL_RESOLVED, cmd.at(), cmd.requestId(), body);
        apply(new CallResolved(sessionId, receipt));
        return new SessionAnswer(receipt, view(ctx));
    }

    @CommandHandler
    public SessionAnswer handle(RevokeCapability cmd, LedgerContext ctx) {
        String capabilityId = cmd.capabilityId() == null ? state.capability().id() : cmd.capabilityId();
        if (!capabilityId.equals(state.capability().id()) && !capabilities.contains(capabilityId)
                && !sessionId.equals(ctx.history().capabilityOwner(capabilityId))) {
            throw new LedgerException(ErrorCode.CAPABILITY_NOT_FOUND,
                    "capability " + capabilityId + " was never issued to this session");
        }
        if (state.capabilityRevoked()) {
            Receipt earlier = revocation != null ? revocation : ctx.history().receipt(state.capabilityRevocationId());
            if (earlier == null) {
                throw new IllegalStateException("session " + sessionId + " names its capability's revocation "
                        + state.capabilityRevocationId() + ", which the log does not hold");
            }
            return new SessionAnswer(earlier, view(ctx));
        }
        expireIfIdle(ctx, cmd.at());
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("capability", capabilityId);
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.CAPABILITY_REVOKED, cmd.at(), null, body);
        apply(new CapabilityRevoked(sessionId, receipt));
        return new SessionAnswer(receipt, view(ctx));
    }

    /** Appends {@code session.expired} when idle too long at the command's time; answers null otherwise. */
    @CommandHandler
    public SessionAnswer handle(ExpireSession cmd, LedgerContext ctx) {
        if (!state.idlePast(cmd.at(), ctx.idleExpiry())) {
            return null;
        }
        return new SessionAnswer(expire(ctx, cmd.at()), view(ctx));
    }

    @CommandHandler
    public SessionAnswer handle(DeleteSession cmd, LedgerContext ctx) {
        requireOwner(cmd.clientTokenSha256());
        requireNotDeleted();
        expireIfIdle(ctx, cmd.at());
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.SESSION_DELETED, cmd.at(), null,
                Canonical.JSON.createObjectNode());
        apply(new SessionDeleted(sessionId, receipt));
        return new SessionAnswer(receipt, view(ctx));
    }

    @EventSourcingHandler
    void on(SessionEvent event) {
        if (calls == null) {
            sessionId = event.sessionId();
            calls = new SessionCalls(sessionId);
        }
        state = SessionFold.apply(state, event.receipt(), calls);
        capabilities.add(state.capability().id());
        if (event instanceof CapabilityRevoked) {
            revocation = event.receipt();
        }
        forgetCallsOnceCommitted();
    }

    /**
     * The calls in memory are what the ledger has not committed; once the unit of work that applied them commits,
     * they are the history's, and memory lets them go. So an aggregate in the cache holds its state and at most one
     * batch's calls, however long its session runs.
     */
    private void forgetCallsOnceCommitted() {
        if (!forgetScheduled && CurrentUnitOfWork.isStarted()) {
            forgetScheduled = true;
            CurrentUnitOfWork.get().afterCommit(u -> {
                forgetScheduled = false;
                calls.forget();
                capabilities.clear();
                revocation = null;
            });
        }
    }

    private Reason decide(RequestCall cmd, Optional<PolicyDocument> policy) {
        Capability capability = state.capability();
        if (state.capabilityRevoked()) {
            return Reason.capabilityRevoked(capability.id());
        }
        List<Grant> covering = new ArrayList<>();
        for (Grant g : capability.grants()) {
            if (g.covers(cmd.server(), cmd.tool(), cmd.operation())) {
                covering.add(g);
            }
        }
        boolean policyAllows = policy.isPresent()
                && policy.get().allows(state.principal(), cmd.server(), cmd.tool(), cmd.operation());
        if (covering.isEmpty() || !policyAllows) {
            return Reason.notInScope(cmd.tool(), cmd.server());
        }
        Instant latest = covering.stream().map(Grant::notAfter).max(Instant::compareTo).orElseThrow();
        if (cmd.at().isAfter(latest)) {
            return Reason.capabilityExpired(cmd.tool(), cmd.server(), latest);
        }
        return null;
    }

    private static Answer repeat(CallRecord earlier, RequestCall cmd) {
        return CallChecks.repeat(earlier, cmd.server(), cmd.tool(), cmd.operation(), cmd.argumentsSha256(),
                "this session");
    }

    /** A 410 or 403 on an existing session still records the refused call, once per request and reason. */
    private ErrorAnswer sessionLevelRefusal(LedgerContext ctx, RequestCall cmd, ErrorCode code, Reason reason) {
        Receipt earlier = CallChecks.earlierRefusal(calls.call(cmd.requestId()), reason);
        if (earlier != null) {
            return new ErrorAnswer(code, reason.message(), earlier);
        }
        return new ErrorAnswer(code, reason.message(), refuse(ctx, cmd, ctx.authority().activePolicy(), reason));
    }

    /** Appends the {@code call.refused} receipt of a request, whichever check refused it. */
    private Receipt refuse(LedgerContext ctx, RequestCall cmd, Optional<PolicyDocument> policy, Reason reason) {
        ObjectNode body = callBody(cmd, state.capability().id(), policy.map(PolicyDocument::hash).orElse(null));
        body.set("reason", reason.toJson());
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.CALL_REFUSED, cmd.at(), cmd.requestId(), body);
        apply(new CallRefused(sessionId, receipt));
        return receipt;
    }

    /**
     * A resume by another edge incarnation marks every pending call {@code unknown}. Calls are admitted under the
     * session's current incarnation and every change of incarnation marks all pending calls, so pending calls always
     * belong to the current one: comparing the incarnation before and after the resume is the per-call comparison.
     */
    private void markUnknownFromPreviousIncarnation(LedgerContext ctx, String before, Instant at) {
        String current = state.incarnation();
        if (Objects.equals(before, current)) {
            return;
        }
        for (CallRecord call : calls.pending()) {
            ObjectNode body = CallChecks.unknown("admitted under edge incarnation " + describe(before)
                    + "; the session was resumed by incarnation " + describe(current) + " before an outcome was recorded");
            Receipt receipt = sign(ctx, sessionId, ReceiptKind.CALL_OUTCOME, at, call.requestId(), body);
            apply(new CallOutcomeRecorded(sessionId, receipt));
        }
    }

    private Receipt expire(LedgerContext ctx, Instant at) {
        if (state.status() != SessionStatus.ACTIVE) {
            return null;
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("lastActivityAt", io.mcpledger.domain.receipt.Timestamps.format(state.lastActivityAt()));
        body.put("idleExpiryMs", ctx.idleExpiry().toMillis());
        Receipt receipt = sign(ctx, sessionId, ReceiptKind.SESSION_EXPIRED, at, null, body);
        apply(new SessionExpired(sessionId, receipt));
        return receipt;
    }

    /**
     * Idle expiry is checked lazily on every request that reaches a session: an active session idle past the
     * expiry gets its {@code session.expired} before anything else is appended, so no later receipt (an outcome,
     * say) can make an idle session look active again.
     */
    private void expireIfIdle(LedgerContext ctx, Instant at) {
        if (state.idlePast(at, ctx.idleExpiry())) {
            expire(ctx, at);
        }
    }

    private boolean isExpired(LedgerContext ctx, Instant at) {
        return state.status() == SessionStatus.EXPIRED || state.idlePast(at, ctx.idleExpiry());
    }

    private void requireOwner(String clientTokenSha256) {
        if (!SessionIds.isIssuedTo(sessionId, clientTokenSha256)) {
            throw new LedgerException(ErrorCode.SESSION_NOT_FOUND, "session not found");
        }
    }

    private void requireNotDeleted() {
        if (state.status() == SessionStatus.DELETED) {
            throw new LedgerException(ErrorCode.SESSION_DELETED, "session has been deleted");
        }
    }

    private CallRecord admittedCall(String requestId) {
        return CallChecks.admitted(calls.call(requestId), requestId, "this session");
    }

    private void putCapability(ObjectNode body, LedgerContext ctx, String principal, Instant at) {
        Optional<PolicyDocument> policy = ctx.authority().activePolicy();
        List<Grant> grants = policy.map(p -> p.grantsFor(principal, at)).orElse(List.of());
        body.set("capability", new Capability(ctx.ids().capabilityId(), grants).toJson());
        policy.ifPresent(p -> body.put("policy", p.hash()));
    }

    private static ObjectNode callBody(RequestCall cmd, String capabilityId, String policyHash) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("server", cmd.server());
        body.put("tool", cmd.tool());
        body.put("operation", cmd.operation());
        body.put("argumentsSha256", cmd.argumentsSha256());
        if (cmd.jsonrpcId() != null) {
            body.set("jsonrpcId", cmd.jsonrpcId().json());
        }
        body.put("capability", capabilityId);
        if (policyHash != null) {
            body.put("policy", policyHash);
        }
        return body;
    }

    private Receipt sign(LedgerContext ctx, String session, ReceiptKind kind, Instant at, String request, ObjectNode body) {
        long seq = state == null ? 1 : state.seq() + 1;
        String prev = state == null ? null : state.head();
        return ctx.signer().sign(new ReceiptDraft(ctx.ids().receiptId(at), kind, at, session, seq, prev, request, body));
    }

    private ObjectNode view(LedgerContext ctx) {
        return SessionView.toJson(state, ctx.idleExpiry());
    }

    private static String describe(String incarnation) {
        return incarnation == null ? "(none)" : incarnation;
    }

}
