package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestDatabases.Kind;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.query.ProjectionStore.Flush;
import io.mcpledger.query.ProjectionStore.Meta;
import io.mcpledger.query.ProjectionStore.StoredCall;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbc.JdbcPreparedStatement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reads end in a commit, not a rollback: H2 forgets a connection's parsed statements at every rollback, and every read
 * was then parsed again (preparing a new call's point read alone took a twentieth of the commit workers' time at
 * saturation).
 */
class ReadsTest {
    private static final String READ = "SELECT position FROM projection_meta WHERE id = 1";

    private final TestDatabases databases = new TestDatabases();

    @AfterEach
    void close() throws Exception {
        databases.close();
    }

    @Test
    void h2KeepsAStatementParsedAcrossReadsThatEndInACommitAndParsesItAgainAfterARollback() throws Exception {
        DataSource database = databases.create(Kind.H2, 1, SqlProjectionStore::create);
        try (Connection c = database.getConnection()) {
            Object first = parsed(c);
            Reads.end(c);
            Object afterCommit = parsed(c);
            c.rollback();
            Object afterRollback = parsed(c);

            assertThat(afterCommit).isSameAs(first);
            assertThat(afterRollback).isNotSameAs(afterCommit);
        }
    }

    @Test
    void theProjectionsAndTheLogAreReadWithoutARollback() throws Exception {
        assertThat(commitsAndRollbacksOfReads(Kind.H2)).containsExactly(5, 0);
    }

    /**
     * On PostgreSQL the same reads run in auto-commit, with no transaction to end: in the READ COMMITTED transaction
     * the pool opens, each statement had a snapshot of its own too, and its COMMIT was one more round trip per read (a
     * new call's point read is one per admission).
     */
    @Test
    void postgresqlReadsTheProjectionsAndTheLogWithNoTransactionToEnd() throws Exception {
        assertThat(commitsAndRollbacksOfReads(Kind.POSTGRESQL)).containsExactly(0, 0);
    }

    /** After a flush, reads of the projections and of the log: how many commits, then rollbacks, they made. */
    private int[] commitsAndRollbacksOfReads(Kind kind) throws Exception {
        DataSource database = databases.create(kind, 2, SqlProjectionStore::create, LedgerLog::create);
        AtomicInteger rollbacks = new AtomicInteger();
        AtomicInteger commits = new AtomicInteger();
        DataSource counted = EventStoreFixture.counting(EventStoreFixture.counting(database, "rollback", rollbacks),
                "commit", commits);
        SqlProjectionStore store = new SqlProjectionStore(counted, ForcedWrites.never());
        store.write(new Flush(new Meta(10, -1, 0), List.of(),
                List.of(new StoredCall(3, "req-1", 5, CallStatus.PENDING, -1, -1)), List.of(), List.of(), Map.of(),
                Map.of()));
        LedgerLog log = new LedgerLog(counted);
        int commitsOfTheFlush = commits.get();
        int rollbacksOfTheFlush = rollbacks.get();

        assertThat(store.call(3, "req-1").status()).isEqualTo(CallStatus.PENDING);
        assertThat(store.call(3, "req-2")).isNull();
        assertThat(store.meta().position()).isEqualTo(10);
        assertThat(log.size()).isZero();
        assertThat(log.locate("r-none")).isNull();

        return new int[] {commits.get() - commitsOfTheFlush, rollbacks.get() - rollbacksOfTheFlush};
    }

    /** The sequencer, idle (nothing appended since its last checkpoint), reads the tree's size and ends as reads do. */
    @Test
    void theIdleSequencerEndsItsReadWithoutARollback() throws Exception {
        DataSource h2 = databases.create(Kind.H2, 2, LedgerLog::create);
        AtomicInteger rollbacks = new AtomicInteger();
        DataSource counted = EventStoreFixture.counting(h2, "rollback", rollbacks);
        LogSequencer sequencer = LogSequencer.open(counted, new LedgerLog(counted), ForcedWrites.never(),
                SigningKey.fromSeed(new byte[32]), "ledger.test/reads", 16);

        assertThat(sequencer.integrate()).isZero();
        assertThat(sequencer.integrate()).isZero();

        assertThat(rollbacks).hasValue(0);
    }

    /** The command H2 parsed for {@link #READ} on this connection, after running it once. */
    private static Object parsed(Connection c) throws Exception {
        try (PreparedStatement s = c.prepareStatement(READ)) {
            try (ResultSet r = s.executeQuery()) {
                r.next();
            }
            Field command = JdbcPreparedStatement.class.getDeclaredField("command");
            command.setAccessible(true);
            return command.get(s.unwrap(JdbcPreparedStatement.class));
        }
    }
}
