package io.mcpledger.app.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.mcpledger.app.storage.H2EventTableFactory;
import io.mcpledger.app.storage.H2PersistenceExceptionResolver;
import io.mcpledger.app.storage.JdbcTransactionManager;
import io.mcpledger.app.storage.LruCache;
import io.mcpledger.app.storage.ReceiptSerializer;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.PrincipalAggregate;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.SessionAggregate;
import io.mcpledger.query.LedgerProjection;
import java.util.List;
import org.axonframework.config.AggregateConfigurer;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.GenericTokenTableFactory;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;

/**
 * All of the ledger's Axon wiring, without Spring: the JDBC event storage engine and token store on the
 * H2 database, one JDBC transaction per unit of work, a Jackson serializer (never XStream), strong LRU
 * aggregate caches, and the projection on a subscribing processor so it is current before any answer.
 */
public final class AxonSetup {
    /** Sessions kept in memory; a session past this is re-sourced from its stream when it is next used. */
    static final int SESSION_CACHE_SIZE = 20_000;

    private AxonSetup() {
    }

    /**
     * Events that are their receipt are stored as the receipt's JCS line ({@link ReceiptSerializer}); everything else
     * through Axon's own Jackson mapper, kept apart from Micronaut's, so HTTP settings never change what is stored.
     */
    public static Serializer serializer() {
        ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule()).build();
        return new ReceiptSerializer(JacksonSerializer.builder().objectMapper(mapper).build());
    }

    /** The JDBC event storage engine on H2, its tables created when missing; the storage tests use it too. */
    public static JdbcEventStorageEngine eventStorage(JdbcTransactionManager transactions, Serializer serializer) {
        JdbcEventStorageEngine storage = JdbcEventStorageEngine.builder()
                .connectionProvider(transactions.connectionProvider())
                .transactionManager(transactions)
                .eventSerializer(serializer)
                .snapshotSerializer(serializer)
                .persistenceExceptionResolver(H2PersistenceExceptionResolver.INSTANCE)
                .build();
        storage.createSchema(H2EventTableFactory.INSTANCE);
        return storage;
    }

    /** Command workers: one per core measured best here; more raise the tail latency. */
    static final int COMMAND_WORKERS = 2;

    /**
     * Builds (does not start) the configuration on {@code commandBus}; creates the event and token tables
     * when missing.
     */
    static Configuration build(JdbcTransactionManager transactions, GroupCommitCommandBus commandBus,
                               LedgerProjection projection, LedgerContext context) {
        Serializer serializer = serializer();
        JdbcEventStorageEngine storage = eventStorage(transactions, serializer);
        JdbcTokenStore tokens = JdbcTokenStore.builder()
                .connectionProvider(transactions.connectionProvider())
                .serializer(serializer)
                .build();
        tokens.createSchema(GenericTokenTableFactory.INSTANCE);

        Configurer configurer = DefaultConfigurer.defaultConfiguration(false)
                .configureSerializer(c -> serializer)
                .configureEventSerializer(c -> serializer)
                .configureMessageSerializer(c -> serializer)
                .configureTransactionManager(c -> transactions)
                // Axon's default stamps every event with a correlation and a trace id: about 100 bytes a receipt on
                // disk that nothing reads (the receipt names its request and session itself).
                .configureCorrelationDataProviders(c -> List.of())
                .configureCommandBus(c -> commandBus)
                .configureEmbeddedEventStore(c -> storage)
                .registerComponent(TokenStore.class, c -> tokens)
                .registerComponent(LedgerContext.class, c -> context)
                .configureAggregate(AggregateConfigurer.defaultConfiguration(SessionAggregate.class)
                        .configureCache(c -> new LruCache(SESSION_CACHE_SIZE))
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE))
                .configureAggregate(AggregateConfigurer.defaultConfiguration(PolicyAggregate.class)
                        .configureCache(c -> new LruCache(1))
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE))
                .configureAggregate(AggregateConfigurer.defaultConfiguration(PrincipalAggregate.class)
                        .configureCache(c -> new LruCache(1_000))
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE));
        configurer.eventProcessing(processing -> processing
                .usingSubscribingEventProcessors()
                .registerEventHandler(c -> projection));
        return configurer.buildConfiguration();
    }
}
