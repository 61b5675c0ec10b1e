package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.NoTransactionManager;
import org.junit.jupiter.api.Test;

/**
 * The commit linger: a worker holding a single command waits for a second one and commits both together, answers
 * neither before that commit, and answers a lone command once the linger has passed. Without a linger the first
 * command is committed and answered alone before the second is sent (with one, it would still be waiting), which
 * shows the test can fail.
 */
class GroupCommitLingerTest {
    /** Far longer than any test waits, so that only a second command can end it. */
    private static final Duration LONG = Duration.ofSeconds(60);

    /** The size of each committed batch, in commit order. */
    private final List<Integer> commits = new CopyOnWriteArrayList<>();
    /** The commands as they were decided, in order. */
    private final List<String> decided = new CopyOnWriteArrayList<>();

    private GroupCommitCommandBus bus(Duration linger) {
        GroupCommitCommandBus bus = new GroupCommitCommandBus(NoTransactionManager.INSTANCE, 1, linger);
        bus.observe((commands, nanos) -> commits.add(commands));
        bus.subscribe(String.class.getName(), message -> {
            decided.add((String) message.getPayload());
            return "handled " + message.getPayload();
        });
        return bus;
    }

    private static CompletableFuture<CommandResultMessage<?>> send(GroupCommitCommandBus bus, String payload) {
        CompletableFuture<CommandResultMessage<?>> answer = new CompletableFuture<>();
        bus.dispatch(GenericCommandMessage.asCommandMessage(payload), (command, result) -> answer.complete(result));
        return answer;
    }

    @Test
    void aSecondCommandEndsTheLingerAndBothShareOneCommit() throws Exception {
        try (GroupCommitCommandBus bus = bus(LONG)) {
            CompletableFuture<CommandResultMessage<?>> first = send(bus, "first");
            Thread.sleep(200);
            assertThat(first).as("the first command, lingering for a second one, is not answered yet").isNotDone();
            assertThat(commits).isEmpty();

            CompletableFuture<CommandResultMessage<?>> second = send(bus, "second");

            assertThat(first.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled first");
            assertThat(second.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled second");
            assertThat(commits).containsExactly(2);
            assertThat(decided).containsExactly("first", "second");
            assertThat(bus.batches()).isEqualTo(1);
            assertThat(bus.commands()).isEqualTo(2);
        }
    }

    @Test
    void withoutALingerTheSameCommandsAreTwoCommits() throws Exception {
        try (GroupCommitCommandBus bus = bus(Duration.ZERO)) {
            CompletableFuture<CommandResultMessage<?>> first = send(bus, "first");
            assertThat(first.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled first");
            CompletableFuture<CommandResultMessage<?>> second = send(bus, "second");

            assertThat(second.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled second");
            assertThat(commits).containsExactly(1, 1);
            assertThat(bus.batches()).isEqualTo(2);
        }
    }

    @Test
    void aLoneCommandIsCommittedAndAnsweredOnceTheLingerHasPassed() throws Exception {
        Duration linger = Duration.ofMillis(300);
        try (GroupCommitCommandBus bus = bus(linger)) {
            long start = System.nanoTime();
            CompletableFuture<CommandResultMessage<?>> alone = send(bus, "alone");

            assertThat(alone.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled alone");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(linger);
            assertThat(commits).containsExactly(1);
        }
    }

    @Test
    void aBatchOfTwoOrMoreDoesNotLinger() throws Exception {
        try (GroupCommitCommandBus bus = bus(LONG)) {
            bus.pause();
            CompletableFuture<CommandResultMessage<?>> a = send(bus, "a");
            CompletableFuture<CommandResultMessage<?>> b = send(bus, "b");
            bus.resume();

            assertThat(a.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled a");
            assertThat(b.get(10, TimeUnit.SECONDS).getPayload()).isEqualTo("handled b");
            assertThat(commits).containsExactly(2);
        }
    }

    @Test
    void aNegativeLingerIsRefused() {
        assertThatThrownBy(() -> new GroupCommitCommandBus(NoTransactionManager.INSTANCE, 1, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("linger must not be negative");
    }
}
