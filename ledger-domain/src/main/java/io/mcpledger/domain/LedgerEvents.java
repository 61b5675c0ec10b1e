package io.mcpledger.domain;

import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.principal.PrincipalRevoked;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.CallAdmitted;
import io.mcpledger.domain.session.CallOutcomeRecorded;
import io.mcpledger.domain.session.CallRefused;
import io.mcpledger.domain.session.CallResolved;
import io.mcpledger.domain.session.CapabilityRevoked;
import io.mcpledger.domain.session.ClientEvent;
import io.mcpledger.domain.session.ClientStreams;
import io.mcpledger.domain.session.SessionDeleted;
import io.mcpledger.domain.session.SessionEvent;
import io.mcpledger.domain.session.SessionExpired;
import io.mcpledger.domain.session.SessionInitialized;
import io.mcpledger.domain.session.SessionResumed;

/**
 * The one mapping between receipts and the events that carry them: every event is its receipt (and, for a policy
 * activation, the policy it activated), so the log stores receipts and the events are made again from them.
 */
public final class LedgerEvents {
    /** The aggregate types, as Axon names them, of the four kinds of stream. */
    public static final String SESSION = "SessionAggregate";
    public static final String POLICY = "PolicyAggregate";
    public static final String PRINCIPAL = "PrincipalAggregate";
    public static final String CLIENT = "ClientAggregate";

    private LedgerEvents() {
    }

    /** The event a receipt is; {@code policy} is the activated policy for {@code policy.activated}, else ignored. */
    public static LedgerEvent of(Receipt r, PolicyDocument policy) {
        if (r.client() != null) {
            return new ClientEvent(r.client(), r);
        }
        return switch (r.kind()) {
            case SESSION_INITIALIZED -> new SessionInitialized(r.session(), r);
            case SESSION_RESUMED -> new SessionResumed(r.session(), r);
            case SESSION_EXPIRED -> new SessionExpired(r.session(), r);
            case SESSION_DELETED -> new SessionDeleted(r.session(), r);
            case CALL_ADMITTED -> new CallAdmitted(r.session(), r);
            case CALL_REFUSED -> new CallRefused(r.session(), r);
            case CALL_OUTCOME -> new CallOutcomeRecorded(r.session(), r);
            case CALL_RESOLVED -> new CallResolved(r.session(), r);
            case CAPABILITY_REVOKED -> new CapabilityRevoked(r.session(), r);
            case PRINCIPAL_REVOKED -> new PrincipalRevoked(r.bodyText("tokenRef"), r);
            case POLICY_ACTIVATED -> {
                if (policy == null || !policy.hash().equals(r.bodyText("policy"))) {
                    throw new IllegalArgumentException("policy.activated " + r.id() + " needs the policy it activated, "
                            + r.bodyText("policy"));
                }
                yield new PolicyActivated(PolicyAggregate.STREAM, r, policy);
            }
        };
    }

    /** The stream (Axon's aggregate identifier) an event belongs to. */
    public static String stream(LedgerEvent event) {
        if (event instanceof SessionEvent s) {
            return s.sessionId();
        }
        if (event instanceof ClientEvent c) {
            return ClientStreams.stream(c.tokenRef());
        }
        if (event instanceof PolicyActivated p) {
            return p.policyStream();
        }
        if (event instanceof PrincipalRevoked p) {
            return p.tokenRef();
        }
        throw new IllegalArgumentException("no stream is known for " + event.getClass().getSimpleName());
    }

    /** The aggregate type of the stream an event belongs to. */
    public static String aggregateType(LedgerEvent event) {
        if (event instanceof SessionEvent) {
            return SESSION;
        }
        if (event instanceof ClientEvent) {
            return CLIENT;
        }
        return event instanceof PolicyActivated ? POLICY : PRINCIPAL;
    }
}
