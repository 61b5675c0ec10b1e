package io.mcpledger.app.storage;

import static io.mcpledger.app.storage.EventStoreFixture.committedEvents;
import static io.mcpledger.app.storage.EventStoreFixture.countingCommits;
import static io.mcpledger.app.storage.EventStoreFixture.engine;
import static io.mcpledger.app.storage.EventStoreFixture.event;
import static io.mcpledger.app.storage.EventStoreFixture.payloads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.storage.EventStoreFixture.Noted;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdbcTransactionManagerTest {
    @TempDir
    Path state;
    private final List<H2Database> opened = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        while (CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().rollback();
        }
        opened.forEach(H2Database::close);
    }

    private H2Database open() throws StorageException {
        return open(H2Database.DEFAULT_POOL_SIZE);
    }

    private H2Database open(int poolSize) throws StorageException {
        H2Database db = H2Database.open(state, poolSize);
        opened.add(db);
        return db;
    }

    @Test
    void eventsAppendedInACommittedUnitOfWorkAreReadableFromANewEngineOnANewPool() throws Exception {
        H2Database first = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(first.dataSource(), first.forcedWrites()));
        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        engine.appendEvents(event("a-1", 0, "first"), event("a-1", 1, "second"));
        uow.commit();
        first.close();

        EventStoreFixture.NoteStore reopened = engine(new JdbcTransactionManager(open().dataSource(), ForcedWrites.never()));

        assertThat(payloads(reopened, "a-1")).containsExactly(new Noted("first"), new Noted("second"));
    }

    @Test
    void eventsAppendedInAUnitOfWorkThatRollsBackAreDiscarded() throws Exception {
        H2Database first = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(first.dataSource(), first.forcedWrites()));
        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        engine.appendEvents(event("a-1", 0, "first"), event("a-1", 1, "second"));
        uow.rollback();
        first.close();

        EventStoreFixture.NoteStore reopened = engine(new JdbcTransactionManager(open().dataSource(), ForcedWrites.never()));

        assertThat(payloads(reopened, "a-1")).isEmpty();
    }

    @Test
    void aFailureLaterInPrepareCommitDiscardsEventsAlreadyAppended() throws Exception {
        H2Database db = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));
        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        uow.onPrepareCommit(u -> engine.appendEvents(event("a-1", 0, "first")));
        uow.onPrepareCommit(u -> {
            throw new IllegalStateException("refused after the append");
        });

        assertThatThrownBy(uow::commit).hasMessage("refused after the append");
        assertThat(committedEvents(db.dataSource())).isZero();
    }

    @Test
    void aUnitOfWorkCommitsOnceAfterPrepareCommitAndBeforeAfterCommit() throws Exception {
        H2Database db = open();
        AtomicInteger commits = new AtomicInteger();
        JdbcTransactionManager transactions = new JdbcTransactionManager(countingCommits(db.dataSource(), commits), ForcedWrites.never());
        EventStoreFixture.NoteStore engine = engine(transactions);
        commits.set(0);
        List<String> seen = new ArrayList<>();

        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        uow.attachTransaction(transactions);
        payloads(engine, "a-1");
        uow.onPrepareCommit(u -> engine.appendEvents(event("a-1", 0, "first"), event("a-1", 1, "second")));
        uow.onPrepareCommit(u -> seen.add("prepare-commit: " + commits.get() + " commits, "
                + committedEvents(db.dataSource()) + " events visible"));
        uow.afterCommit(u -> seen.add("after-commit: " + commits.get() + " commits, "
                + committedEvents(db.dataSource()) + " events visible"));
        uow.commit();

        assertThat(seen).containsExactly(
                "prepare-commit: 0 commits, 0 events visible",
                "after-commit: 1 commits, 2 events visible");
        assertThat(commits).hasValue(1);
    }

    @Test
    void aUnitOfWorkIsForcedToDiskBeforeItsAfterCommitSteps() throws Exception {
        H2Database db = open();
        List<String> seen = new ArrayList<>();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(),
                ForcedWrites.by(() -> seen.add("forced")));
        EventStoreFixture.NoteStore engine = engine(transactions);

        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        uow.attachTransaction(transactions);
        uow.onPrepareCommit(u -> engine.appendEvents(event("f-1", 0, "first")));
        uow.afterCommit(u -> seen.add("after-commit"));
        uow.commit();

        assertThat(seen).containsExactly("forced", "after-commit");
    }

    @Test
    void aCommitThatCannotBeForcedFailsAsUnforcedAndSkipsItsAfterCommitSteps() throws Exception {
        H2Database db = open();
        List<String> seen = new ArrayList<>();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(),
                ForcedWrites.by(() -> {
                    throw new SQLException("Input/output error");
                }));
        EventStoreFixture.NoteStore engine = engine(transactions);

        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        uow.attachTransaction(transactions);
        uow.onPrepareCommit(u -> engine.appendEvents(event("u-1", 0, "first")));
        uow.afterCommit(u -> seen.add("after-commit"));

        assertThatThrownBy(uow::commit)
                .isInstanceOf(UnforcedCommitException.class)
                .hasMessageContaining("committed but could not be forced to disk")
                .hasMessageContaining("Input/output error");
        assertThat(seen).isEmpty();
    }

    /**
     * H2 may throw an Error when a connection of a store that failed is returned: that must not replace the unforced
     * commit's failure, or the commit would look done.
     */
    @Test
    void anErrorReturningTheConnectionDoesNotHideAnUnforcedCommit() throws Exception {
        H2Database db = open();
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
        javax.sql.DataSource breaking = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object real = method.invoke(db.dataSource(), args);
                    if (!method.getName().equals("getConnection")) {
                        return real;
                    }
                    java.sql.Connection connection = (java.sql.Connection) real;
                    return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                            new Class<?>[] {java.sql.Connection.class}, (p, m, a) -> {
                                if (m.getName().equals("close") && broken.get()) {
                                    connection.close();
                                    throw new AssertionError("v=106 / cnt=0");
                                }
                                try {
                                    return m.invoke(connection, a);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                });
        JdbcTransactionManager transactions = new JdbcTransactionManager(breaking, ForcedWrites.by(() -> {
            throw new SQLException("Input/output error");
        }));
        EventStoreFixture.NoteStore engine = engine(transactions);
        broken.set(true);

        UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        uow.attachTransaction(transactions);
        uow.onPrepareCommit(u -> engine.appendEvents(event("u-1", 0, "first")));

        assertThatThrownBy(uow::commit)
                .isInstanceOf(UnforcedCommitException.class)
                .hasMessageContaining("Input/output error")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(AssertionError.class));
    }

    @Test
    void aNestedUnitOfWorkIsCommittedWithItsRootNotBefore() throws Exception {
        H2Database db = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));
        UnitOfWork<?> root = DefaultUnitOfWork.startAndGet(null);
        UnitOfWork<?> nested = DefaultUnitOfWork.startAndGet(null);
        engine.appendEvents(event("a-1", 0, "first"));
        nested.commit();

        assertThat(committedEvents(db.dataSource())).isZero();
        root.commit();
        assertThat(committedEvents(db.dataSource())).isEqualTo(1);
    }

    @Test
    void aRootRollbackDiscardsWhatItsCommittedNestedUnitsWrote() throws Exception {
        H2Database db = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));
        UnitOfWork<?> root = DefaultUnitOfWork.startAndGet(null);
        for (int i = 0; i < 3; i++) {
            UnitOfWork<?> nested = DefaultUnitOfWork.startAndGet(null);
            engine.appendEvents(event("a-" + i, 0, "nested " + i));
            nested.commit();
        }

        root.rollback();

        assertThat(committedEvents(db.dataSource())).isZero();
    }

    @Test
    void aRolledBackNestedUnitDoesNotUndoItsSiblingsOrRoot() throws Exception {
        H2Database db = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));
        UnitOfWork<?> root = DefaultUnitOfWork.startAndGet(null);
        UnitOfWork<?> kept = DefaultUnitOfWork.startAndGet(null);
        engine.appendEvents(event("a-1", 0, "kept"));
        kept.commit();
        UnitOfWork<?> refused = DefaultUnitOfWork.startAndGet(null);
        refused.rollback();

        root.commit();

        assertThat(payloads(engine, "a-1")).containsExactly(new Noted("kept"));
    }

    @Test
    void outsideAUnitOfWorkEachAppendCommitsItself() throws Exception {
        H2Database db = open();
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));

        engine.appendEvents(event("a-1", 0, "first"), event("a-1", 1, "second"));

        assertThat(committedEvents(db.dataSource())).isEqualTo(2);
    }

    @Test
    void executeInTransactionRollsBackWhenTheTaskThrows() throws Exception {
        H2Database db = open();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(), db.forcedWrites());
        EventStoreFixture.NoteStore engine = engine(transactions);

        assertThatThrownBy(() -> transactions.executeInTransaction(() -> {
            engine.appendEvents(event("a-1", 0, "first"));
            throw new IllegalStateException("task failed");
        })).hasMessage("task failed");
        assertThat(committedEvents(db.dataSource())).isZero();
    }

    @Test
    void aTransactionStartedInsideAnotherJoinsItAndOnlyTheOuterCommits() throws Exception {
        H2Database db = open();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(), db.forcedWrites());
        EventStoreFixture.NoteStore engine = engine(transactions);
        Transaction outer = transactions.startTransaction();
        Transaction inner = transactions.startTransaction();
        engine.appendEvents(event("a-1", 0, "first"));
        inner.commit();

        assertThat(committedEvents(db.dataSource())).isZero();
        outer.commit();
        assertThat(committedEvents(db.dataSource())).isEqualTo(1);
    }

    @Test
    void aTransactionAttachedBeforeItsUnitOfWorkStartsOwnsTheUnitsWrites() throws Exception {
        H2Database db = open();
        AtomicInteger commits = new AtomicInteger();
        JdbcTransactionManager transactions = new JdbcTransactionManager(countingCommits(db.dataSource(), commits), ForcedWrites.never());
        EventStoreFixture.NoteStore engine = engine(transactions);
        commits.set(0);
        // What Axon's event processors do: attach first, then run the batch in the unit.
        DefaultUnitOfWork<?> uow = new DefaultUnitOfWork<>(null);
        uow.attachTransaction(transactions);

        uow.executeWithResult(() -> {
            engine.appendEvents(event("a-1", 0, "first"));
            return null;
        });

        assertThat(commits).hasValue(1);
        assertThat(committedEvents(db.dataSource())).isEqualTo(1);
    }

    @Test
    void aTransactionAttachedBeforeItsUnitOfWorkRollsBackWithIt() throws Exception {
        H2Database db = open();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(), db.forcedWrites());
        EventStoreFixture.NoteStore engine = engine(transactions);
        DefaultUnitOfWork<?> uow = new DefaultUnitOfWork<>(null);
        uow.attachTransaction(transactions);

        uow.executeWithResult(() -> {
            engine.appendEvents(event("a-1", 0, "first"));
            throw new IllegalStateException("handler failed");
        });

        assertThat(committedEvents(db.dataSource())).isZero();
    }

    @Test
    void outsideAnyTransactionTheProviderGivesAnAutoCommittingConnection() throws Exception {
        H2Database db = open();
        JdbcTransactionManager transactions = new JdbcTransactionManager(db.dataSource(), db.forcedWrites());
        engine(transactions);

        try (Connection c = transactions.connectionProvider().getConnection(); Statement s = c.createStatement()) {
            assertThat(c.getAutoCommit()).isTrue();
            s.executeUpdate("INSERT INTO note VALUES ('a-1', 0, 'first')");
        }

        assertThat(committedEvents(db.dataSource())).isEqualTo(1);
    }

    @Test
    void committingATransactionTwiceIsRefusedAndRollingBackAfterwardsIsHarmless() throws Exception {
        JdbcTransactionManager transactions = new JdbcTransactionManager(open().dataSource(), ForcedWrites.never());
        Transaction transaction = transactions.startTransaction();
        transaction.commit();

        assertThatThrownBy(transaction::commit)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the transaction has already been committed or rolled back");
        transaction.rollback();
    }

    @Test
    void everyUnitOfWorkReturnsItsConnectionToThePool() throws Exception {
        H2Database db = open(1);
        EventStoreFixture.NoteStore engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));

        for (int i = 0; i < 6; i++) {
            UnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
            engine.appendEvents(event("a-" + i, 0, "event " + i));
            if (i % 2 == 0) {
                uow.commit();
            } else {
                uow.rollback();
            }
        }

        assertThat(committedEvents(db.dataSource())).isEqualTo(3);
    }
}
