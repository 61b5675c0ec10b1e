package io.mcpledger.app.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.mcpledger.app.storage.JdbcTransactionManager;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.PrincipalAggregate;
import io.mcpledger.domain.session.ClientAggregate;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.SessionAggregate;
import java.util.List;
import org.axonframework.common.caching.Cache;
import org.axonframework.config.AggregateConfigurer;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;

/**
 * All of the ledger's Axon wiring, without Spring: the ledger's event storage ({@link LedgerEventStorage}), one JDBC
 * transaction per unit of work, a Jackson serializer (never XStream) and bounded aggregate caches.
 */
public final class AxonSetup {
    /** Command workers: one per core measured best here; more raise the tail latency. */
    static final int COMMAND_WORKERS = 2;

    private AxonSetup() {
    }

    /** Axon's own Jackson mapper, kept apart from Micronaut's; the log stores receipts, never serialized objects. */
    static Serializer serializer() {
        ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule()).build();
        return JacksonSerializer.builder().objectMapper(mapper).build();
    }

    /** The aggregates' caches, which {@link LogFollower} empties of what other nodes changed. */
    record Caches(Cache sessions, Cache policy, Cache principals, Cache clients) {
        /**
         * The session cache (and the client streams' cache) holds up to {@code sessions} aggregates (each its state and at most one batch's calls);
         * a session past it is loaded again from the projections when it is next used.
         */
        static Caches of(int sessions) {
            return new Caches(new CaffeineCache(sessions), new CaffeineCache(1), new CaffeineCache(1_000),
                    new CaffeineCache(sessions));
        }

        List<Cache> all() {
            return List.of(sessions, policy, principals, clients);
        }
    }

    /**
     * Builds (does not start) the configuration on {@code commandBus} and {@code storage}, with the aggregates cached
     * in {@code caches}.
     */
    static Configuration build(JdbcTransactionManager transactions, GroupCommitCommandBus commandBus,
                               EventStorageEngine storage, LedgerContext context, Caches caches) {
        Serializer serializer = serializer();
        Configurer configurer = DefaultConfigurer.defaultConfiguration(false)
                .configureSerializer(c -> serializer)
                .configureEventSerializer(c -> serializer)
                .configureMessageSerializer(c -> serializer)
                .configureTransactionManager(c -> transactions)
                // Axon's default stamps every event with a correlation and a trace id that nothing reads.
                .configureCorrelationDataProviders(c -> List.of())
                .configureCommandBus(c -> commandBus)
                .configureEmbeddedEventStore(c -> storage)
                .registerComponent(LedgerContext.class, c -> context)
                .configureAggregate(AggregateConfigurer.defaultConfiguration(SessionAggregate.class)
                        .configureCache(c -> caches.sessions())
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE))
                .configureAggregate(AggregateConfigurer.defaultConfiguration(PolicyAggregate.class)
                        .configureCache(c -> caches.policy())
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE))
                .configureAggregate(AggregateConfigurer.defaultConfiguration(ClientAggregate.class)
                        .configureCache(c -> caches.clients())
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE))
                .configureAggregate(AggregateConfigurer.defaultConfiguration(PrincipalAggregate.class)
                        .configureCache(c -> caches.principals())
                        .configureCommandTargetResolver(c -> LedgerTargetResolver.INSTANCE));
        return configurer.buildConfiguration();
    }
}
