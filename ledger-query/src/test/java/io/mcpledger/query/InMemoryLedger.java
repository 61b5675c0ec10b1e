package io.mcpledger.query;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.PrincipalAggregate;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.SessionAggregate;
import io.mcpledger.domain.LedgerEvent;
import java.time.Duration;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.eventsourcing.eventstore.inmemory.InMemoryEventStorageEngine;
import org.axonframework.serialization.json.JacksonSerializer;

/** A real Axon configuration (in-memory storage) with the aggregates and the projection, for tests. */
final class InMemoryLedger implements AutoCloseable {
    static final SigningKey KEY =
            SigningKey.fromSeed(Hex.decode("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"));

    final LedgerProjection projection;
    final Configuration config;

    InMemoryLedger(Duration idleExpiry) {
        projection = new LedgerProjection(idleExpiry);
        LedgerContext ctx = new LedgerContext(new ReceiptSigner(KEY, "ledger.example/test"), projection, idleExpiry,
                new RandomIds());
        Configurer configurer = DefaultConfigurer.defaultConfiguration(false)
                .configureSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureEventSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureMessageSerializer(c -> JacksonSerializer.defaultSerializer())
                .configureEmbeddedEventStore(c -> new InMemoryEventStorageEngine())
                .configureAggregate(SessionAggregate.class)
                .configureAggregate(PolicyAggregate.class)
                .configureAggregate(PrincipalAggregate.class)
                .registerComponent(LedgerContext.class, c -> ctx);
        configurer.eventProcessing(ep -> ep.usingSubscribingEventProcessors().registerEventHandler(c -> projection));
        config = configurer.start();
    }

    @SuppressWarnings("unchecked")
    <R> R send(Object command) {
        return (R) config.commandGateway().sendAndWait(command);
    }

    /** A fresh projection rebuilt from everything the event store holds, in store order. */
    LedgerProjection rebuilt(Duration idleExpiry) {
        LedgerProjection fresh = new LedgerProjection(idleExpiry);
        try (var stream = config.eventStore().openStream(null)) {
            while (stream.hasNextAvailable()) {
                fresh.replay((LedgerEvent) stream.nextAvailable().getPayload());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return fresh;
    }

    @Override
    public void close() {
        config.shutdown();
    }
}
