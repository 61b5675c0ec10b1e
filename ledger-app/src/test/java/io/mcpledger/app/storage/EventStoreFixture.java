package io.mcpledger.app.storage;

import io.mcpledger.app.engine.AxonSetup;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.json.JacksonSerializer;

/** Builds Axon's JDBC event storage engine the way the ledger does, and looks at the database from outside it. */
final class EventStoreFixture {
    /** A payload like the ledger's events: a record, serialized by Jackson. */
    record Noted(String text) {
    }

    private EventStoreFixture() {
    }

    static JdbcEventStorageEngine engine(JdbcTransactionManager transactions) {
        return AxonSetup.eventStorage(transactions, JacksonSerializer.defaultSerializer());
    }

    static DomainEventMessage<Noted> event(String aggregateId, long sequence, String text) {
        return new GenericDomainEventMessage<>("Note", aggregateId, sequence, new Noted(text));
    }

    static List<Object> payloads(JdbcEventStorageEngine engine, String aggregateId) {
        return engine.readEvents(aggregateId).asStream().map(EventMessage::getPayload).map(Object.class::cast).toList();
    }

    /** Counts the stored events through a connection of its own, so only committed rows are seen. */
    static long committedEvents(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM DomainEventEntry")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A data source whose connections count the {@code commit()} calls that reach them. */
    static DataSource countingCommits(DataSource target, AtomicInteger commits) {
        return (DataSource) Proxy.newProxyInstance(EventStoreFixture.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    if (method.getName().equals("getConnection")) {
                        Connection connection = (Connection) result;
                        return Proxy.newProxyInstance(EventStoreFixture.class.getClassLoader(),
                                new Class<?>[] {Connection.class}, (p, m, a) -> {
                                    if (m.getName().equals("commit")) {
                                        commits.incrementAndGet();
                                    }
                                    return invoke(m, connection, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
