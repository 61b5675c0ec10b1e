package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.query.ProjectionConflictException;
import io.mcpledger.query.ProjectionStore.Flush;
import io.mcpledger.query.ProjectionStore.Meta;
import io.mcpledger.query.ProjectionStore.StoredCall;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush inserts the calls decided at or after the position the store held before and updates the others; an update of a row the store does not hold, or a second decision for a call, fails the whole flush.
 */
class SqlProjectionStoreTest {
    private static final long SESSION = 3;

    @TempDir
    Path state;
    private H2Database database;
    private SqlProjectionStore store;

    @BeforeEach
    void open() throws Exception {
        database = H2Database.open(state, 2);
        try (Connection c = database.dataSource().getConnection()) {
            SqlProjectionStore.create(c);
            c.commit();
        }
        store = new SqlProjectionStore(database.dataSource(), database.forcedWrites());
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void aCallDecidedBeforeTheLastFlushIsUpdatedAndANewOneInserted() {
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));
        store.write(flush(20, new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1),
                new StoredCall(SESSION, "req-2", 15, CallStatus.REFUSED, -1, -1)));

        assertThat(store.call(SESSION, "req-1")).isEqualTo(new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1));
        assertThat(store.call(SESSION, "req-2")).isEqualTo(
                new StoredCall(SESSION, "req-2", 15, CallStatus.REFUSED, -1, -1));
        assertThat(store.meta().position()).isEqualTo(20);
    }

    @Test
    void anUpdateOfACallTheStoreDoesNotHoldFailsTheWholeFlush() {
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));

        assertThatThrownBy(() -> store.write(flush(20,
                new StoredCall(SESSION, "req-1", 5, CallStatus.OK, 12, -1),
                new StoredCall(SESSION, "req-9", 7, CallStatus.OK, 13, -1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the store has no call req-9 (decided at 7)");

        assertThat(store.meta().position()).isEqualTo(10);
        assertThat(store.call(SESSION, "req-1").status()).isEqualTo(CallStatus.PENDING);
        assertThat(store.call(SESSION, "req-9")).isNull();
    }

    @Test
    void aSecondDecisionForACallIsAConflictAndStoresNothing() {
        store.write(flush(10, new StoredCall(SESSION, "req-1", 5, CallStatus.PENDING, -1, -1)));

        assertThatThrownBy(() -> store.write(flush(20,
                new StoredCall(SESSION, "req-2", 11, CallStatus.PENDING, -1, -1),
                new StoredCall(SESSION, "req-1", 12, CallStatus.PENDING, -1, -1))))
                .isInstanceOf(ProjectionConflictException.class);

        assertThat(store.meta().position()).isEqualTo(10);
        assertThat(store.call(SESSION, "req-2")).isNull();
        assertThat(store.call(SESSION, "req-1").decision()).isEqualTo(5);
    }

    private static Flush flush(long position, StoredCall... calls) {
        return new Flush(new Meta(position, -1, 0), List.of(), List.of(calls), List.of(), List.of(), Map.of(),
                Map.of());
    }
}
