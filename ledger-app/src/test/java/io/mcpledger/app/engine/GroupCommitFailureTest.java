package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.junit.jupiter.api.Test;

/**
 * A batch is answered as stored only when its transaction's commit, forced write included, completed. A store that
 * fails with an {@code Error} (H2 throws {@code AssertionError} from a store that failed under a power cut) leaves the
 * unit of work neither committed nor rolled back; its callers must still hear that nothing was stored.
 */
class GroupCommitFailureTest {
    private static CommandResultMessage<?> dispatchOne(TransactionManager transactions) throws Exception {
        try (GroupCommitCommandBus bus = new GroupCommitCommandBus(transactions, 1)) {
            bus.subscribe(String.class.getName(), message -> "handled " + message.getPayload());
            CompletableFuture<CommandResultMessage<?>> answer = new CompletableFuture<>();
            bus.dispatch(GenericCommandMessage.asCommandMessage("call"), (command, result) -> answer.complete(result));
            return answer.get(10, TimeUnit.SECONDS);
        }
    }

    /** The root's transaction commits with {@code commit}; the nested units' join it, as JdbcTransactionManager's do. */
    private static TransactionManager committingWith(Runnable commit) {
        AtomicInteger started = new AtomicInteger();
        return () -> {
            boolean root = started.getAndIncrement() == 0;
            return new Transaction() {
                @Override
                public void commit() {
                    if (root) {
                        commit.run();
                    }
                }

                @Override
                public void rollback() {
                }
            };
        };
    }

    @Test
    void aCommitThatCompletesIsAnswered() throws Exception {
        CommandResultMessage<?> result = dispatchOne(committingWith(() -> { }));

        assertThat(result.isExceptional()).isFalse();
        assertThat(result.getPayload()).isEqualTo("handled call");
    }

    @Test
    void aCommitThatFailsWithAnErrorIsNotAnsweredAsStored() throws Exception {
        CommandResultMessage<?> result = dispatchOne(committingWith(() -> {
            throw new AssertionError("v=106 / cnt=0");
        }));

        assertThat(result.isExceptional()).isTrue();
        assertThat(result.exceptionResult()).isInstanceOf(NotStoredException.class)
                .hasMessageContaining("not stored");
    }

    @Test
    void aCommitThatFailsWithAnExceptionIsNotAnsweredAsStored() throws Exception {
        CommandResultMessage<?> result = dispatchOne(committingWith(() -> {
            throw new IllegalStateException("the disk is gone");
        }));

        assertThat(result.isExceptional()).isTrue();
        assertThat(result.exceptionResult()).isInstanceOf(NotStoredException.class);
    }
}
