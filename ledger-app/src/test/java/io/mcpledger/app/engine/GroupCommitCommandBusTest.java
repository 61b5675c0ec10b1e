package io.mcpledger.app.engine;

import static io.mcpledger.app.engine.RestartIsReplayTest.T0;
import static io.mcpledger.app.engine.RestartIsReplayTest.open;
import static io.mcpledger.app.engine.RestartIsReplayTest.settings;
import static io.mcpledger.app.engine.RestartIsReplayTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.session.CallAnswer;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.ResumeSession;
import io.mcpledger.domain.session.SessionIds;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit: one commit per batch, no answer before it, and failures contained as the bus promises. */
class GroupCommitCommandBusTest {
    @TempDir
    Path dir;
    private LedgerEngine ledger;

    @BeforeEach
    void start() throws Exception {
        ledger = LedgerEngine.start(open(dir), settings(dir, PolicyFiles.parse(RestartIsReplayTest.QUOTE_AND_DISCOUNT)),
                Clock.fixed(T0, ZoneOffset.UTC));
    }

    @AfterEach
    void stop() {
        ledger.close();
    }

    /** Sessions whose commands all go to one worker, so they meet in one batch. */
    private List<String> sessionsOnOneWorker(int count, int tokenIndex) {
        List<String> ids = new ArrayList<>();
        while (ids.size() < count) {
            String id = SessionIds.issue(token(tokenIndex), RandomIds.sessionRandom());
            if (Math.floorMod(id.hashCode(), AxonSetup.COMMAND_WORKERS) == 0) {
                ids.add(id);
            }
        }
        return ids;
    }

    private String initialize(String id, int tokenIndex) {
        ledger.commands().sendAndWait(new InitializeSession(id, token(tokenIndex), "alice", "pricing", "2025-06-18",
                null, null, T0));
        return id;
    }

    private RequestCall call(String id, int tokenIndex, String requestId) {
        return new RequestCall(id, token(tokenIndex), requestId, "pricing", "quote", "invoke", "ab".repeat(32), null,
                T0.plusSeconds(1));
    }

    /** Receipts in the store, read on a connection of its own: only what is committed. */
    private long storedEvents() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("ledger"), "sa", "");
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM ledger_entry")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void concurrentCommandsShareOneCommit() throws Exception {
        List<String> sessions = sessionsOnOneWorker(20, 1);
        sessions.forEach(id -> initialize(id, 1));
        long batchesBefore = ledger.commandBus().batches();

        ledger.commandBus().pause();
        List<CompletableFuture<CallAnswer>> answers = new ArrayList<>();
        for (String id : sessions) {
            answers.add(ledger.commands().send(call(id, 1, "req-1")));
        }
        ledger.commandBus().resume();

        for (CompletableFuture<CallAnswer> answer : answers) {
            assertThat(answer.get(30, TimeUnit.SECONDS).admitted()).isTrue();
        }
        assertThat(ledger.commandBus().batches() - batchesBefore).isEqualTo(1);
    }

    @Test
    void noAnswerComesBeforeItsCommit() throws Exception {
        List<String> sessions = sessionsOnOneWorker(10, 1);
        sessions.forEach(id -> initialize(id, 1));
        long before = storedEvents();

        ledger.commandBus().pause();
        List<CompletableFuture<Long>> storedWhenAnswered = new ArrayList<>();
        for (String id : sessions) {
            storedWhenAnswered.add(ledger.commands().<CallAnswer>send(call(id, 1, "req-1")).thenApply(a -> {
                try {
                    return storedEvents();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        ledger.commandBus().resume();

        for (CompletableFuture<Long> stored : storedWhenAnswered) {
            assertThat(stored.get(30, TimeUnit.SECONDS)).isEqualTo(before + sessions.size());
        }
    }

    @Test
    void aRefusalInABatchRollsBackAloneAndTheRestCommits() throws Exception {
        String id = initialize(sessionsOnOneWorker(1, 1).get(0), 1);

        ledger.commandBus().pause();
        CompletableFuture<CallAnswer> first = ledger.commands().send(call(id, 1, "req-1"));
        CompletableFuture<Object> refused = ledger.commands().send(new ResumeSession(id, token(1), "1999-01-01", null,
                T0.plusSeconds(1)));
        CompletableFuture<CallAnswer> second = ledger.commands().send(call(id, 1, "req-2"));
        ledger.commandBus().resume();

        assertThat(first.get(30, TimeUnit.SECONDS).receipt().seq()).isEqualTo(2);
        assertThat(second.get(30, TimeUnit.SECONDS).receipt().seq()).isEqualTo(3);
        assertThat(failureOf(refused)).isInstanceOfSatisfying(LedgerException.class,
                e -> assertThat(e.code().code()).isEqualTo("unsupported_protocol_version"));
        assertThat(ledger.projector().sessionView(id).orElseThrow().path("seq").asLong()).isEqualTo(3);
    }

    @Test
    void anUnexpectedFailureRollsBackItsWholeBatchAndNothingIsStored() throws Exception {
        List<String> sessions = sessionsOnOneWorker(2, 1);
        String existing = initialize(sessions.get(0), 1);
        String other = initialize(sessions.get(1), 1);
        long before = storedEvents();
        var digestBefore = ledger.projector().digest();

        ledger.commandBus().pause();
        CompletableFuture<CallAnswer> innocent = ledger.commands().send(call(other, 1, "req-1"));
        CompletableFuture<Object> reused = ledger.commands().send(new InitializeSession(existing, token(1), "alice",
                "pricing", "2025-06-18", null, null, T0));
        ledger.commandBus().resume();

        assertThat(failureOf(reused)).isInstanceOf(IllegalStateException.class)
                .hasMessage("session id " + existing + " is already in use");
        assertThat(failureOf(innocent)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("not stored: the commit this command shared failed")
                .hasMessageEndingWith("it is safe to retry");
        assertThat(storedEvents()).isEqualTo(before);
        assertThat(ledger.projector().digest()).isEqualTo(digestBefore);

        CallAnswer retried = ledger.commands().sendAndWait(call(other, 1, "req-1"));
        assertThat(retried.admitted()).isTrue();
        assertThat(retried.receipt().seq()).isEqualTo(2);
    }

    /**
     * In a batch after a restart (memory holds no call), whose calls are read ahead in one query: a call decided before
     * is answered with its receipt again, a new one is admitted, and the same new requestId twice in the batch is
     * admitted once.
     */
    @Test
    void aBatchTellsRetriesFromNewCallsWhenItsCallsAreReadAhead() throws Exception {
        List<String> sessions = sessionsOnOneWorker(6, 1);
        List<CallAnswer> earlier = new ArrayList<>();
        for (String id : sessions) {
            initialize(id, 1);
            earlier.add(ledger.commands().sendAndWait(call(id, 1, "req-1")));
        }
        ledger.close();
        ledger = LedgerEngine.start(open(dir), settings(dir, PolicyFiles.parse(RestartIsReplayTest.QUOTE_AND_DISCOUNT)),
                Clock.fixed(T0, ZoneOffset.UTC));
        long batchesBefore = ledger.commandBus().batches();
        long storedBefore = storedEvents();

        ledger.commandBus().pause();
        List<CompletableFuture<CallAnswer>> retries = new ArrayList<>();
        List<CompletableFuture<CallAnswer>> fresh = new ArrayList<>();
        for (String id : sessions) {
            retries.add(ledger.commands().send(call(id, 1, "req-1")));
            fresh.add(ledger.commands().send(call(id, 1, "req-2")));
        }
        CompletableFuture<CallAnswer> again = ledger.commands().send(call(sessions.get(0), 1, "req-2"));
        ledger.commandBus().resume();

        for (int i = 0; i < sessions.size(); i++) {
            assertThat(retries.get(i).get(30, TimeUnit.SECONDS).receipt()).isEqualTo(earlier.get(i).receipt());
            CallAnswer admitted = fresh.get(i).get(30, TimeUnit.SECONDS);
            assertThat(admitted.admitted()).isTrue();
            assertThat(admitted.receipt().seq()).isEqualTo(3);
        }
        assertThat(again.get(30, TimeUnit.SECONDS).receipt()).isEqualTo(fresh.get(0).get().receipt());
        assertThat(ledger.commandBus().batches() - batchesBefore).isEqualTo(1);
        assertThat(storedEvents()).as("one receipt per new call").isEqualTo(storedBefore + sessions.size());
    }

    private static Throwable failureOf(CompletableFuture<?> future) throws InterruptedException {
        try {
            future.get(30, TimeUnit.SECONDS);
            throw new AssertionError("expected the command to fail");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer within 30 s", e);
        }
    }
}
