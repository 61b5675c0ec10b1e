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
import io.mcpledger.domain.session.SessionAggregate;
import io.mcpledger.domain.session.SessionChain;
import io.mcpledger.domain.session.SessionEvent;
import io.mcpledger.query.LedgerProjector;
import io.mcpledger.query.LogReader;
import io.mcpledger.query.ProjectionStore.StoredSession;
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
 * <p><b>Appending.</b> What the event store's unique (stream, sequence) key checked elsewhere is checked here before
 * anything is written: every session receipt must continue its session's committed chain (the next {@code seq}, and
 * {@code prev} the hash of the one before), a principal is revoked once. A batch that does not is refused whole as a
 * {@link ConcurrencyException}, and nothing of it is stored. Once a batch is committed (and forced), the projections
 * fold it, with its positions, before any of its commands is answered.
 */
public final class LedgerEventStorage implements EventStorageEngine {
    private final JdbcTransactionManager transactions;
    private final LedgerLog log;
    private final LedgerProjector projector;

    public LedgerEventStorage(JdbcTransactionManager transactions, LedgerLog log, LedgerProjector projector) {
        this.transactions = transactions;
        this.log = log;
        this.projector = projector;
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
        requireContinuation(batch);
        long first = transactions.fetchInTransaction(() -> {
            try {
                return LedgerLog.append(transactions.connectionProvider().getConnection(), rows, this::headOf);
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
                    throw new ConcurrencyException("receipt " + r.id() + " of session " + id + " does not follow the"
                            + " session's committed receipts (" + broken + " after seq " + seq
                            + "); nothing of this batch was stored");
                }
                last.put(id, r);
            } else if (event instanceof PrincipalRevoked revoked) {
                if (projector.isPrincipalRevoked(revoked.tokenRef()) || last.put(revoked.tokenRef(), r) != null) {
                    throw new ConcurrencyException("principal " + revoked.tokenRef() + " is already revoked; nothing"
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
