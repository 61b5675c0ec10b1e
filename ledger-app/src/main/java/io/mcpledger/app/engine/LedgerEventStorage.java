package io.mcpledger.app.engine;

import io.mcpledger.app.storage.JdbcTransactionManager;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.LedgerEvents;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.PrincipalAggregate;
import io.mcpledger.domain.principal.PrincipalRevoked;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.ClientAggregate;
import io.mcpledger.domain.session.ClientEvent;
import io.mcpledger.domain.session.ClientStreams;
import io.mcpledger.domain.session.SessionAggregate;
import io.mcpledger.domain.session.SessionChain;
import io.mcpledger.domain.session.SessionEvent;
import io.mcpledger.domain.session.SessionInitialized;
import io.mcpledger.query.LedgerProjector;
import io.mcpledger.query.LogReader;
import io.mcpledger.query.ProjectionStore.StoredClient;
import io.mcpledger.query.ProjectionStore.StoredSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.GenericTrackedDomainEventMessage;
import org.axonframework.eventhandling.GlobalSequenceTrackingToken;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.EventStoreException;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.ConcurrencyException;

/**
 * Axon's event storage for the ledger: events are their receipts, appended to {@link LedgerLog} at positions taken in
 * the append transaction, and aggregates are loaded from the projections as snapshots.
 *
 * <p>Why not Axon's {@code JdbcEventStorageEngine}: its table keeps every event's aggregate id, sequence, type,
 * identifier, timestamp, payload type and metadata beside the payload, with a unique index on (aggregate id,
 * sequence) into which every commit inserts at random places. On H2, whose commits write every B-tree page they
 * touch, that made the file grow about 11 KB per receipt under load and halved the commit rate (docs/benchmarks.md);
 * the log here writes one row per receipt at the end of one table. Axon still runs the command side: its units of
 * work, aggregates, caching repositories and this storage interface.
 *
 * <p><b>Loading.</b> The projections fold every committed receipt before the next command is decided, so their
 * state of a stream is its state after its latest receipt: {@link #readSnapshot} gives it as the aggregate itself, and
 * {@link #readEvents(String, long)} reads the stream's receipts after a sequence number by following each receipt's
 * link to the one before in its stream.
 *
 * <p><b>Appending.</b> An append first takes its positions ({@link LedgerLog#reserve}: on PostgreSQL this waits for
 * any other node's append to commit), then folds every entry before them that other nodes appended
 * ({@link LogFollower}), and only then checks the batch against the log as it now is, before anything is written: what
 * the event store's unique (stream, sequence) key checks elsewhere (every session receipt continues its session's
 * committed chain: the next {@code seq}, and {@code prev} the hash of the one before; a principal is revoked once),
 * that the authority the batch was decided under has not changed, and that its new sessions fit under the cap counted
 * on every node. A batch that does not is refused whole as a {@link StaleBatchException} (a
 * {@link ConcurrencyException}), nothing of it is stored, and {@link GroupCommitCommandBus} decides it again. Once a
 * batch is committed (and forced), the projections fold it, with its positions, before any of its commands is
 * answered.
 */
public final class LedgerEventStorage implements EventStorageEngine {
    /**
     * The root unit of work's resource holding {@link LedgerProjector#authorityChanges()} as it was when the batch
     * began to be decided.
     */
    static final String AUTHORITY = "ledger.authority-changes";

    private final JdbcTransactionManager transactions;
    private final LedgerLog log;
    private final LedgerProjector projector;
    private final LogFollower follower;
    private final int maxActiveSessions;

    LedgerEventStorage(JdbcTransactionManager transactions, LedgerLog log, LedgerProjector projector,
            LogFollower follower, int maxActiveSessions) {
        this.transactions = transactions;
        this.log = log;
        this.projector = projector;
        this.follower = follower;
        this.maxActiveSessions = maxActiveSessions;
    }

    @Override
    public void appendEvents(List<? extends EventMessage<?>> events) {
        if (events.isEmpty()) {
            return;
        }
        projector.problem().ifPresent(p -> {
            throw new EventStoreException("the ledger appends nothing until it is restarted: the projections stopped ("
                    + p + ")");
        });
        List<LedgerEvent> batch = new ArrayList<>(events.size());
        List<LedgerLog.Row> rows = new ArrayList<>(events.size());
        for (EventMessage<?> message : events) {
            if (!(message.getPayload() instanceof LedgerEvent event)) {
                throw new EventStoreException("only receipts are stored, not " + message.getPayloadType().getName());
            }
            batch.add(event);
            rows.add(new LedgerLog.Row(LedgerEvents.stream(event), event.receipt(),
                    event instanceof PolicyActivated p ? p.document() : null));
        }
        long first = transactions.fetchInTransaction(() -> {
            try {
                Connection c = transactions.connectionProvider().getConnection();
                long reserved = LedgerLog.reserve(c, rows.size());
                // Every position before ours is committed, and no other append commits until we do: fold what other
                // nodes appended, then check that nothing this batch was decided on has changed meanwhile.
                follower.followTo(reserved);
                if (projector.position() != reserved) {
                    throw new EventStoreException("the log's next position is " + reserved + " but the projections"
                            + " hold " + projector.position() + " entries; nothing of this batch was stored");
                }
                requireContinuation(batch);
                requireAuthorityUnchanged();
                requireRoomForSessions(batch);
                transactions.journal(LedgerLog.insert(c, reserved, rows, this::headOf));
                return reserved;
            } catch (SQLException e) {
                throw new EventStoreException("the receipts could not be appended: " + e.getMessage(), e);
            }
        });
        List<LedgerEvent> committed = Collections.unmodifiableList(batch);
        if (CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().root().afterCommit(u -> projector.foldCommitted(first, committed));
        } else {
            projector.foldCommitted(first, committed);
        }
    }

    /**
     * Refuses a batch decided under an authority (the active policy, the revoked principals) that has changed since
     * the batch began: a revocation or activation committed meanwhile, here or on another node, must be obeyed by
     * every admission decided after it was answered.
     */
    private void requireAuthorityUnchanged() {
        if (!CurrentUnitOfWork.isStarted()) {
            return;
        }
        Long decidedUnder = CurrentUnitOfWork.get().root().getResource(AUTHORITY);
        if (decidedUnder != null && decidedUnder != projector.authorityChanges()) {
            throw new StaleBatchException("the policy or a principal's revocation changed while this batch was"
                    + " decided; nothing of it was stored");
        }
    }

    /** Refuses a batch whose new sessions would take the active sessions, on every node together, past the cap. */
    private void requireRoomForSessions(List<LedgerEvent> batch) {
        long opened = batch.stream().filter(e -> e instanceof SessionInitialized).count();
        if (opened > 0 && projector.activeSessions() + opened > maxActiveSessions) {
            throw new StaleBatchException("this batch would open " + opened + " sessions where "
                    + projector.activeSessions() + " of " + maxActiveSessions + " are active; nothing of it was stored");
        }
    }

    /** Refuses a batch in which a receipt does not continue its stream as committed and as appended before it. */
    private void requireContinuation(List<LedgerEvent> batch) {
        Map<String, Receipt> last = new HashMap<>();
        for (LedgerEvent event : batch) {
            Receipt r = event.receipt();
            if (event instanceof SessionEvent session) {
                String id = session.sessionId();
                Receipt before = last.get(id);
                long seq;
                String head;
                if (before != null) {
                    seq = before.seq();
                    head = before.hash();
                } else {
                    StoredSession committed = projector.session(id, false);
                    seq = committed == null ? 0 : committed.state().seq();
                    head = committed == null ? null : committed.state().head();
                }
                SessionChain.Break broken = SessionChain.check(seq, head, r);
                if (broken != null) {
                    throw new StaleBatchException("receipt " + r.id() + " of session " + id + " does not follow the"
                            + " session's committed receipts (" + broken + " after seq " + seq
                            + "); nothing of this batch was stored");
                }
                last.put(id, r);
            } else if (event instanceof ClientEvent client) {
                String stream = ClientStreams.stream(client.tokenRef());
                Receipt before = last.get(stream);
                long seq;
                String head;
                if (before != null) {
                    seq = before.seq();
                    head = before.hash();
                } else {
                    StoredClient committed = projector.client(client.tokenRef(), false);
                    seq = committed == null ? 0 : committed.state().seq();
                    head = committed == null ? null : committed.state().head();
                }
                SessionChain.Break broken = SessionChain.check(seq, head, r);
                if (broken != null) {
                    throw new StaleBatchException("receipt " + r.id() + " of client " + client.tokenRef()
                            + " does not follow the client's committed receipts (" + broken + " after seq " + seq
                            + "); nothing of this batch was stored");
                }
                last.put(stream, r);
            } else if (event instanceof PrincipalRevoked revoked) {
                if (projector.isPrincipalRevoked(revoked.tokenRef()) || last.put(revoked.tokenRef(), r) != null) {
                    throw new StaleBatchException("principal " + revoked.tokenRef() + " is already revoked; nothing"
                            + " of this batch was stored");
                }
            }
        }
    }

    /** The position of a stream's latest committed receipt, or -1 when it has none. */
    private long headOf(String stream) {
        if (PolicyAggregate.STREAM.equals(stream)) {
            return projector.policyPosition();
        }
        if (Hex.isLowerHex(stream, 64)) {
            return projector.principalRevocationPosition(stream);
        }
        String client = ClientStreams.tokenRef(stream);
        if (client != null) {
            return projector.clientHeadPosition(client);
        }
        return projector.headPosition(stream);
    }

    /** The aggregates are their projections: there is nothing to store. */
    @Override
    public void storeSnapshot(DomainEventMessage<?> snapshot) {
    }

    @Override
    public Optional<DomainEventMessage<?>> readSnapshot(String aggregateIdentifier) {
        if (PolicyAggregate.STREAM.equals(aggregateIdentifier)) {
            return projector.activePolicy().map(policy -> new GenericDomainEventMessage<>(LedgerEvents.POLICY,
                    aggregateIdentifier, projector.policyActivations() - 1, PolicyAggregate.restored(policy.hash())));
        }
        if (Hex.isLowerHex(aggregateIdentifier, 64)) {
            Receipt revocation = projector.principalRevocation(aggregateIdentifier);
            return Optional.ofNullable(revocation).map(r -> new GenericDomainEventMessage<>(LedgerEvents.PRINCIPAL,
                    aggregateIdentifier, 0L, PrincipalAggregate.restored(r)));
        }
        String client = ClientStreams.tokenRef(aggregateIdentifier);
        if (client != null) {
            StoredClient stored = projector.client(client, true);
            return Optional.ofNullable(stored).map(c -> new GenericDomainEventMessage<>(LedgerEvents.CLIENT,
                    aggregateIdentifier, c.state().seq() - 1, ClientAggregate.restored(c.state())));
        }
        StoredSession session = projector.session(aggregateIdentifier, true);
        return Optional.ofNullable(session).map(s -> new GenericDomainEventMessage<>(LedgerEvents.SESSION,
                aggregateIdentifier, s.state().seq() - 1, SessionAggregate.restored(s.state())));
    }

    /**
     * A stream's committed receipts from an Axon sequence number on, found from its latest receipt by following each
     * receipt's link to the one before; after a snapshot this is usually nothing.
     */
    @Override
    public DomainEventStream readEvents(String aggregateIdentifier, long firstSequenceNumber) {
        long head = headOf(aggregateIdentifier);
        if (head < 0) {
            return DomainEventStream.empty();
        }
        long lastSequence = PolicyAggregate.STREAM.equals(aggregateIdentifier) ? projector.policyActivations() - 1
                : Hex.isLowerHex(aggregateIdentifier, 64) ? 0 : log.entry(head).receipt().seq() - 1;
        List<DomainEventMessage<?>> events = new ArrayList<>();
        long position = head;
        for (long sequence = lastSequence; sequence >= firstSequenceNumber && position >= 0; sequence--) {
            LogReader.Entry entry = log.entry(position);
            events.add(message(entry, sequence));
            position = log.prevPosition(position);
        }
        Collections.reverse(events);
        return DomainEventStream.of(events);
    }

    /** The log from the token on, by position; the ledger runs no tracking processor, so this never blocks. */
    @Override
    public Stream<? extends TrackedEventMessage<?>> readEvents(TrackingToken trackingToken, boolean mayBlock) {
        long from = trackingToken == null ? 0 : ((GlobalSequenceTrackingToken) trackingToken).getGlobalIndex() + 1;
        long to = log.size();
        List<TrackedEventMessage<?>> messages = new ArrayList<>();
        log.scan(from, to, entry -> {
            DomainEventMessage<?> message = message(entry, -1);
            messages.add(new GenericTrackedDomainEventMessage<>(new GlobalSequenceTrackingToken(entry.position()),
                    message));
        });
        return messages.stream();
    }

    private static DomainEventMessage<?> message(LogReader.Entry entry, long sequence) {
        Receipt r = entry.receipt();
        LedgerEvent event = LedgerEvents.of(r, entry.policy());
        long seq = sequence >= 0 ? sequence : r.kind().sessionScoped() ? r.seq() - 1 : 0;
        return new GenericDomainEventMessage<>(LedgerEvents.aggregateType(event), LedgerEvents.stream(event), seq,
                event, MetaData.emptyInstance(), r.id(), r.at());
    }
}
