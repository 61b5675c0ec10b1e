package io.mcpledger.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.LedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.ledger.SessionView;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.principal.PrincipalRevoked;
import io.mcpledger.domain.session.SessionEvent;
import io.mcpledger.domain.session.Authority;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's projections, all folded from receipts with {@link LedgerFold}: sessions, capabilities,
 * revoked principals, the active policy and the digest. It is also the {@link Authority} admission reads.
 *
 * <p>Events are applied after their unit of work commits and before the command is answered, so a
 * 2xx reply is always visible here and a rolled-back command never is. On start it is rebuilt by
 * replaying the event store through {@link #replay}.
 */
@ProcessingGroup(LedgerProjection.PROCESSING_GROUP)
public class LedgerProjection implements Authority {
    public static final String PROCESSING_GROUP = "projections";
    private static final Logger LOG = LoggerFactory.getLogger(LedgerProjection.class);
    private static final String PENDING = LedgerProjection.class.getName() + ".committed";

    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final LedgerState state = new LedgerState();
    private final Map<String, ReceiptLocation> locations = new HashMap<>();
    private final Duration idleExpiry;
    private PolicyDocument activePolicy;
    private long policyActivations;
    /** Receipts committed so far: the next receipt's index in the transparency log. */
    private long logSize;
    private String problem;

    public LedgerProjection(Duration idleExpiry) {
        this.idleExpiry = idleExpiry;
    }

    @EventHandler
    public void on(LedgerEvent event) {
        if (!CurrentUnitOfWork.isStarted()) {
            replay(event);
            return;
        }
        // Axon runs after-commit handlers in reverse order of registration, and one command may append
        // several receipts (session.expired then call.refused): gather them and fold them in order.
        UnitOfWork<?> root = CurrentUnitOfWork.get().root();
        List<LedgerEvent> committed = root.getOrComputeResource(PENDING, key -> {
            List<LedgerEvent> events = new ArrayList<>();
            root.afterCommit(u -> foldCommitted(events));
            return events;
        });
        committed.add(event);
    }

    /**
     * Folds a committed batch, each event on its own: a receipt the fold refuses (which would mean the projections
     * missed one before it) is logged and kept as {@link #problem()}, and the other sessions' receipts of the
     * batch are still folded. The receipts are stored either way; a restart rebuilds the projections from them.
     */
    void foldCommitted(List<LedgerEvent> events) {
        for (LedgerEvent event : events) {
            try {
                replay(event);
            } catch (RuntimeException e) {
                write(() -> problem == null
                        ? problem = "receipt " + event.receipt().id() + " could not be folded: " + e.getMessage()
                        : problem);
            }
        }
    }

    /** Why the projections no longer match the log (restart the ledger to rebuild them), or empty when they do. */
    public Optional<String> problem() {
        return read(() -> Optional.ofNullable(problem));
    }

    /**
     * Folds one event in; used for live events after commit and for the rebuild at start. Events arrive in the order
     * they were committed, which is the log's order, so the count so far is the receipt's log index; it is counted
     * even when the fold refuses the receipt, because the receipt is in the log either way.
     */
    public void replay(LedgerEvent event) {
        write(() -> {
            locations.put(event.receipt().id(), locate(event, logSize++));
            PolicyDocument activated;
            try {
                LedgerFold.apply(state, event.receipt());
                activated = event instanceof PolicyActivated p ? parse(p) : null;
            } catch (RuntimeException e) {
                LOG.error("Projection cannot fold committed receipt {}: {}. The projections no longer match the log;"
                        + " restart the ledger to rebuild them.", event.receipt().id(), e.getMessage());
                throw e;
            }
            if (activated != null) {
                activePolicy = activated;
            }
            return null;
        });
    }

    /** Session streams hold one event per receipt, so a session receipt's {@code seq} gives its place. */
    private ReceiptLocation locate(LedgerEvent event, long index) {
        if (event instanceof SessionEvent s) {
            return new ReceiptLocation(s.sessionId(), s.receipt().seq() - 1, index);
        }
        if (event instanceof PolicyActivated p) {
            return new ReceiptLocation(p.policyStream(), policyActivations++, index);
        }
        if (event instanceof PrincipalRevoked p) {
            return new ReceiptLocation(p.tokenRef(), 0, index);
        }
        throw new IllegalArgumentException("no stream is known for " + event.getClass().getSimpleName());
    }

    private static PolicyDocument parse(PolicyActivated event) {
        try {
            return PolicyDocument.fromCanonical(event.document());
        } catch (InvalidPolicyException e) {
            throw new IllegalStateException("stored policy " + event.receipt().id() + " no longer validates: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Optional<PolicyDocument> activePolicy() {
        return read(() -> Optional.ofNullable(activePolicy));
    }

    @Override
    public boolean isPrincipalRevoked(String tokenRef) {
        return read(() -> state.revokedPrincipals().contains(tokenRef));
    }

    /** The session object S, or empty when the id was never issued. */
    public Optional<ObjectNode> session(String id) {
        return read(() -> Optional.ofNullable(state.session(id)).map(s -> SessionView.toJson(s, idleExpiry)));
    }

    /** Sessions in id order after {@code after} (exclusive), active ones only when {@code activeOnly}. */
    public SessionPage sessions(boolean activeOnly, String after, int limit) {
        return read(() -> {
            List<ObjectNode> page = new ArrayList<>();
            String next = null;
            var candidates = after == null ? state.sessions().values() : state.sessions().tailMap(after, false).values();
            for (SessionState s : candidates) {
                if (activeOnly && s.status() != SessionStatus.ACTIVE) {
                    continue;
                }
                if (page.size() == limit) {
                    next = page.get(page.size() - 1).path("id").asText();
                    break;
                }
                page.add(SessionView.toJson(s, idleExpiry));
            }
            return new SessionPage(page, next);
        });
    }

    public long activeSessions() {
        return read(state::activeSessions);
    }

    /** Where the receipt with this id is stored, or empty when no committed receipt has it. */
    public Optional<ReceiptLocation> locate(String receiptId) {
        return read(() -> Optional.ofNullable(locations.get(receiptId)));
    }

    /** The sessions in which {@code requestId} has a decision, in id order. */
    public List<String> sessionsWithRequest(String requestId) {
        return read(() -> state.sessions().values().stream()
                .filter(s -> s.call(requestId) != null)
                .map(SessionState::id)
                .toList());
    }

    /** Active sessions idle longer than the expiry at {@code now}: the reaper's work list. */
    public List<String> idleSessions(Instant now) {
        return read(() -> state.sessions().values().stream()
                .filter(s -> isIdle(s, now))
                .map(SessionState::id)
                .toList());
    }

    /** True when the session is active and idle longer than the expiry at {@code now}. */
    public boolean isIdle(String id, Instant now) {
        return read(() -> {
            SessionState s = state.session(id);
            return s != null && isIdle(s, now);
        });
    }

    private boolean isIdle(SessionState s, Instant now) {
        return s.status() == SessionStatus.ACTIVE && now.isAfter(s.lastActivityAt().plus(idleExpiry));
    }

    /** The session a capability id was issued to. */
    public Optional<String> capabilityOwner(String capabilityId) {
        return read(() -> Optional.ofNullable(state.capabilityOwner(capabilityId)));
    }

    /** How many receipts are committed: the log's size once the sequencer has integrated them all. */
    public long logSize() {
        return read(() -> logSize);
    }

    /** How many receipts the projections have folded. */
    public long size() {
        return read(state::size);
    }

    public DigestView digest() {
        return read(() -> new DigestView(state.size(), ProjectionDigest.of(state)));
    }

    private <T> T read(Supplier<T> query) {
        lock.readLock().lock();
        try {
            return query.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    private <T> T write(Supplier<T> change) {
        lock.writeLock().lock();
        try {
            return change.get();
        } finally {
            lock.writeLock().unlock();
        }
    }
}
