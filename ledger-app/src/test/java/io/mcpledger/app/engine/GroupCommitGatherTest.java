package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.session.SessionCommand;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker waiting for the append lock while the other worker commits decides the commands that reach it meanwhile
 * into the batch it waits with, and commits them all at once; none is answered before that commit, they are decided
 * in the order they arrived, and a gathered command that fails after applying events rolls the whole batch back
 * without keeping the lock. The first test fails on a bus that decides nothing while it waits (the commands queued
 * behind the waiting batch are decided only after its commit, so not while the other worker's commit is held).
 */
class GroupCommitGatherTest {
    /** A command for one session: routed to the worker of its session id. */
    record Note(String sessionId, String text) implements SessionCommand {
    }

    /** The size of each committed batch, in commit order. */
    private final List<Integer> commits = new CopyOnWriteArrayList<>();
    /** The commands as they were decided, in order. */
    private final List<String> decided = new CopyOnWriteArrayList<>();
    /** Set to hold worker 0's next commit (under the append lock) until {@link #release} opens. */
    private final AtomicBoolean holdNextCommit = new AtomicBoolean();
    private final CountDownLatch committing = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private GroupCommitCommandBus bus;
    /** A session whose commands go to worker 1 (strings and other ledger-wide commands go to worker 0). */
    private String session;

    @BeforeEach
    void start() {
        // A batch's root transaction is the one a worker starts with none open; the nested units' commit as each
        // command is decided (JdbcTransactionManager's join the root's), the root's under the append lock.
        ThreadLocal<int[]> open = ThreadLocal.withInitial(() -> new int[1]);
        TransactionManager transactions = () -> {
            boolean root = open.get()[0]++ == 0;
            return new Transaction() {
                @Override
                public void commit() {
                    open.get()[0]--;
                    if (root && Thread.currentThread().getName().equals("ledger-commit-0")
                            && holdNextCommit.compareAndSet(true, false)) {
                        committing.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }

                @Override
                public void rollback() {
                    open.get()[0]--;
                }
            };
        };
        bus = new GroupCommitCommandBus(transactions, 2);
        bus.observe((commands, nanos) -> commits.add(commands));
        bus.subscribe(String.class.getName(), message -> {
            decided.add((String) message.getPayload());
            return "handled " + message.getPayload();
        });
        bus.subscribe(Note.class.getName(), message -> {
            String text = ((Note) message.getPayload()).text();
            decided.add(text);
            if (text.equals("poison")) {
                throw new IllegalStateException("failed after applying events");
            }
            return "handled " + text;
        });
        for (int i = 0; session == null; i++) {
            if (Math.floorMod(("session-" + i).hashCode(), 2) == 1) {
                session = "session-" + i;
            }
        }
    }

    @AfterEach
    void stop() {
        release.countDown();
        bus.close();
    }

    private CompletableFuture<CommandResultMessage<?>> send(Object payload) {
        CompletableFuture<CommandResultMessage<?>> answer = new CompletableFuture<>();
        bus.dispatch(GenericCommandMessage.asCommandMessage(payload), (command, result) -> answer.complete(result));
        return answer;
    }

    /** Worker 0 commits a command and is held in that commit, holding the append lock. */
    private CompletableFuture<CommandResultMessage<?>> holdTheAppendLock() throws InterruptedException {
        holdNextCommit.set(true);
        CompletableFuture<CommandResultMessage<?>> held = send("held");
        assertThat(committing.await(10, TimeUnit.SECONDS)).as("worker 0 is in its commit").isTrue();
        return held;
    }

    private void awaitDecided(String... texts) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!decided.containsAll(List.of(texts)) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(decided).as("decided while the other worker's commit holds the append lock").contains(texts);
    }

    @Test
    void commandsArrivingWhileTheOtherWorkerCommitsJoinTheWaitingBatch() throws Exception {
        CompletableFuture<CommandResultMessage<?>> held = holdTheAppendLock();
        CompletableFuture<CommandResultMessage<?>> first = send(new Note(session, "first"));
        awaitDecided("first");
        CompletableFuture<CommandResultMessage<?>> second = send(new Note(session, "second"));
        CompletableFuture<CommandResultMessage<?>> third = send(new Note(session, "third"));

        awaitDecided("second", "third");
        assertThat(List.of(held, first, second, third)).as("nothing is answered before its commit").noneMatch(
                CompletableFuture::isDone);
        assertThat(commits).isEmpty();

        release.countDown();
        assertThat(held.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled held");
        assertThat(first.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled first");
        assertThat(second.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled second");
        assertThat(third.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled third");
        assertThat(commits).as("worker 0's batch and worker 1's with all three").containsExactlyInAnyOrder(1, 3);
        assertThat(decided).containsExactly("held", "first", "second", "third");
        assertThat(bus.batches()).isEqualTo(2);
        assertThat(bus.commands()).isEqualTo(4);
    }

    /**
     * The guard hears of the commands about to be decided, the batch's first ones and each group gathered while it
     * waits, before any of them is decided (the ledger reads their calls ahead then, in one query).
     */
    @Test
    void theGuardHearsOfEachGroupOfCommandsBeforeItIsDecided() throws Exception {
        List<List<String>> groups = new CopyOnWriteArrayList<>();
        bus.guard(new GroupCommitCommandBus.BatchGuard() {
            @Override
            public void beforeBatch(UnitOfWork<?> root, int attempt) {
            }

            @Override
            public RuntimeException refusal(CommandMessage<?> command, UnitOfWork<?> root) {
                return null;
            }

            @Override
            public void beforeDecide(List<CommandMessage<?>> commands) {
                List<String> texts = commands.stream().map(c -> c.getPayload() instanceof Note note ? note.text()
                        : (String) c.getPayload()).toList();
                groups.add(texts);
                decided.add("ahead " + texts);
            }
        });
        CompletableFuture<CommandResultMessage<?>> held = holdTheAppendLock();
        send(new Note(session, "first"));
        awaitDecided("first");
        send(new Note(session, "second"));
        send(new Note(session, "third"));
        awaitDecided("second", "third");
        release.countDown();
        held.get(10, TimeUnit.SECONDS);

        assertThat(groups).as("no group is empty").noneMatch(List::isEmpty);
        List<String> ahead = List.of();
        for (String entry : decided) {
            if (entry.startsWith("ahead ")) {
                ahead = groups.remove(0);
            } else {
                assertThat(ahead).as("the group heard of before %s was decided", entry).contains(entry);
            }
        }
        assertThat(decided).filteredOn(e -> !e.startsWith("ahead ")).containsExactly("held", "first", "second",
                "third");
    }

    @Test
    void aGatheredCommandThatFailsRollsTheBatchBackAndLeavesTheLockFree() throws Exception {
        CompletableFuture<CommandResultMessage<?>> held = holdTheAppendLock();
        CompletableFuture<CommandResultMessage<?>> first = send(new Note(session, "first"));
        awaitDecided("first");
        CompletableFuture<CommandResultMessage<?>> poison = send(new Note(session, "poison"));

        CommandResultMessage<?> firstAnswer = first.get(10, TimeUnit.SECONDS);
        assertThat(firstAnswer.isExceptional()).isTrue();
        assertThat(firstAnswer.exceptionResult()).isInstanceOf(NotStoredException.class)
                .hasMessageContaining("the commit this command shared failed");
        assertThat(poison.get(10, TimeUnit.SECONDS).exceptionResult()).isInstanceOf(IllegalStateException.class);
        assertThat(held).as("worker 0 still holds its commit").isNotDone();

        release.countDown();
        assertThat(held.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled held");
        CompletableFuture<CommandResultMessage<?>> after = send(new Note(session, "after"));
        assertThat(after.get(10, TimeUnit.SECONDS).getPayload()).as("the rolled-back batch kept no lock")
                .isEqualTo("handled after");
        assertThat(commits).containsExactly(1, 1);
    }
}
