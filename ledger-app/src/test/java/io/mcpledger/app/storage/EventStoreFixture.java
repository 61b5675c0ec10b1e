package io.mcpledger.app.storage;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A table of notes written and read through a {@link JdbcTransactionManager}, as the ledger's storage writes its log
 * through one; and a look at the database from outside it.
 */
final class EventStoreFixture {
    /** A payload, as the tests name what they wrote. */
    record Noted(String text) {
    }

    /** One note of a stream at a sequence number. */
    record Note(String stream, long sequence, String text) {
    }

    /** Writes notes in the transaction of the current unit of work (or one of its own), reads committed ones. */
    static final class NoteStore {
        private final JdbcTransactionManager transactions;

        NoteStore(JdbcTransactionManager transactions) {
            this.transactions = transactions;
            // Outside any transaction: an auto-committing connection, so no test's forced writes see the table made.
            update("CREATE TABLE IF NOT EXISTS note (stream VARCHAR(64) NOT NULL, sequence BIGINT NOT NULL,"
                    + " text VARCHAR(256) NOT NULL, PRIMARY KEY (stream, sequence))");
        }

        void appendEvents(Note... notes) {
            transactions.executeInTransaction(() -> {
                try (Connection c = transactions.connectionProvider().getConnection();
                     PreparedStatement s = c.prepareStatement("INSERT INTO note VALUES (?, ?, ?)")) {
                    for (Note note : notes) {
                        s.setString(1, note.stream());
                        s.setLong(2, note.sequence());
                        s.setString(3, note.text());
                        s.addBatch();
                    }
                    s.executeBatch();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        List<Object> read(String stream) {
            return transactions.fetchInTransaction(() -> {
                List<Object> texts = new ArrayList<>();
                try (Connection c = transactions.connectionProvider().getConnection();
                     PreparedStatement s = c.prepareStatement(
                             "SELECT text FROM note WHERE stream = ? ORDER BY sequence")) {
                    s.setString(1, stream);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            texts.add(new Noted(r.getString(1)));
                        }
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return texts;
            });
        }

        private void update(String sql) {
            try (Connection c = transactions.connectionProvider().getConnection(); Statement s = c.createStatement()) {
                s.execute(sql);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private EventStoreFixture() {
    }

    static NoteStore engine(JdbcTransactionManager transactions) {
        return new NoteStore(transactions);
    }

    static Note event(String stream, long sequence, String text) {
        return new Note(stream, sequence, text);
    }

    static List<Object> payloads(NoteStore store, String stream) {
        return store.read(stream);
    }

    /** Counts the stored notes through a connection of its own, so only committed rows are seen. */
    static long committedEvents(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM note")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A data source whose connections count the {@code commit()} calls that reach them. */
    static DataSource countingCommits(DataSource target, AtomicInteger commits) {
        return counting(target, "commit", commits);
    }

    /** A data source whose connections count the calls of their method {@code name} that reach them. */
    static DataSource counting(DataSource target, String name, AtomicInteger calls) {
        return (DataSource) Proxy.newProxyInstance(EventStoreFixture.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    if (method.getName().equals("getConnection")) {
                        Connection connection = (Connection) result;
                        return Proxy.newProxyInstance(EventStoreFixture.class.getClassLoader(),
                                new Class<?>[] {Connection.class}, (p, m, a) -> {
                                    if (m.getName().equals(name)) {
                                        calls.incrementAndGet();
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
