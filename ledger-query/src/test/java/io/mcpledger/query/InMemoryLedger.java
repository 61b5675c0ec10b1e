package io.mcpledger.query;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.PrincipalAggregate;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.ClientAggregate;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.SessionAggregate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventsourcing.eventstore.inmemory.InMemoryEventStorageEngine;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.axonframework.serialization.json.JacksonSerializer;

/**
 * A real Axon command side (aggregates sourced from Axon's in-memory store) whose committed batches are appended to
 * an in-memory log and folded into the projections with their positions, as the ledger's storage does; and the
 * projections' store in memory, so that tests can open the projections again as a restart or a rebuild would.
 */
final class InMemoryLedger implements AutoCloseable {
    static final SigningKey KEY =
            SigningKey.fromSeed(Hex.decode("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"));

    final MemoryLog log = new MemoryLog();
    final MemoryProjectionStore store = new MemoryProjectionStore();
    final LedgerProjector projector;
    final Configuration config;
    private final Duration idleExpiry;

    InMemoryLedger(Duration idleExpiry) {
        this.idleExpiry = idleExpiry;
        projector = LedgerProjector.open(store, log, idleExpiry, LedgerProjector.Caches.DEFAULT);
        LedgerContext ctx = new LedgerContext(new ReceiptSigner(KEY, "ledger.example/test"), projector, idleExpiry,
                new RandomIds(), projector);
        Configurer configurer = DefaultConfigurer.defaultConfiguration(false)
                .configureSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureEventSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureMessageSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureEmbeddedEventStore(c -> new InMemoryEventStorageEngine())
                .configureAggregate(SessionAggregate.class)
                .configureAggregate(PolicyAggregate.class)
                .configureAggregate(PrincipalAggregate.class)
                .configureAggregate(ClientAggregate.class)
                .registerComponent(LedgerContext.class, c -> ctx);
        configurer.eventProcessing(ep -> ep.usingSubscribingEventProcessors()
                .registerEventHandler(c -> new Appender()));
        config = configurer.start();
    }

    /** Appends each committed unit of work's events to the log, in order, and folds them with their positions. */
    private final class Appender {
        private static final String BATCH = "in-memory-ledger.batch";

        @EventHandler
        public void on(LedgerEvent event) {
            UnitOfWork<?> root = CurrentUnitOfWork.get().root();
            List<LedgerEvent> batch = root.getOrComputeResource(BATCH, key -> {
                List<LedgerEvent> events = new ArrayList<>();
                root.afterCommit(u -> projector.foldCommitted(log.append(events), events));
                return events;
            });
            batch.add(event);
        }
    }

    @SuppressWarnings("unchecked")
    <R> R send(Object command) {
        return (R) config.commandGateway().sendAndWait(command);
    }

    /**
     * The projections a restart opens: what the store holds (everything, if {@code flushFirst}; else only what the
     * live projections flushed so far), and the log's entries after it folded.
     */
    LedgerProjector restarted(boolean flushFirst) {
        if (flushFirst) {
            projector.flush();
        }
        LedgerProjector restarted = LedgerProjector.open(store.copy(), log, idleExpiry, LedgerProjector.Caches.DEFAULT);
        restarted.catchUp(n -> { });
        return restarted;
    }

    /** The projections folded again from the whole log into an empty store: what {@code rebuild} does. */
    LedgerProjector rebuilt() {
        LedgerProjector rebuilt = LedgerProjector.open(new MemoryProjectionStore(), log, idleExpiry,
                LedgerProjector.Caches.DEFAULT);
        rebuilt.catchUp(n -> { });
        return rebuilt;
    }

    @Override
    public void close() {
        config.shutdown();
    }
}
