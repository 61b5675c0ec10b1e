package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.MessageHandler;
import org.junit.jupiter.api.Test;

/**
 * A batch is answered as stored only when its transaction's commit, forced write included, completed. A store that
 * fails with an {@code Error} (H2 throws {@code AssertionError} from a store that failed under a power cut) leaves the
 * unit of work neither committed nor rolled back; its callers must still hear that nothing was stored.
 */
class GroupCommitFailureTest {
    private static CommandResultMessage<?> dispatchOne(TransactionManager transactions) throws Exception {
        return dispatchOne(transactions, message -> "handled " + message.getPayload(), () -> null);
    }

    private static CommandResultMessage<?> dispatchOne(TransactionManager transactions,
            MessageHandler<? super CommandMessage<?>> handler, Supplier<NotStoredException> refusal) throws Exception {
        try (GroupCommitCommandBus bus = new GroupCommitCommandBus(transactions, 1)) {
            bus.subscribe(String.class.getName(), handler);
            bus.refuseWhile(refusal);
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

    /**
     * A command whose reads fail because the store stopped writing under it (housekeeping or the other worker met a
     * full disk, and H2 closed the database while this command was decided) is answered as the ledger now answers
     * every command, {@code 503}, not as a failure of its own ({@code 500}).
     */
    @Test
    void aCommandThatFailsBecauseTheStoreStoppedWritingHearsTheStoresRefusal() throws Exception {
        AtomicBoolean storeFailed = new AtomicBoolean();
        NotStoredException refusal = new NotStoredException("the ledger's store can no longer write", null);

        CommandResultMessage<?> result = dispatchOne(committingWith(() -> { }), message -> {
            storeFailed.set(true);
            throw new IllegalStateException("cannot read call r-1: The database has been closed");
        }, () -> storeFailed.get() ? refusal : null);

        assertThat(result.isExceptional()).isTrue();
        assertThat(result.exceptionResult()).isSameAs(refusal);
    }

    /** The same failure while the store still writes is the command's own, and is answered as such. */
    @Test
    void aCommandThatFailsOnItsOwnKeepsItsFailure() throws Exception {
        CommandResultMessage<?> result = dispatchOne(committingWith(() -> { }), message -> {
            throw new IllegalStateException("a bug");
        }, () -> null);

        assertThat(result.isExceptional()).isTrue();
        assertThat(result.exceptionResult()).isNotInstanceOf(NotStoredException.class).hasMessage("a bug");
    }
}
