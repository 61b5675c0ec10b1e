package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What each caller of a batch is told when something fails before, inside or after the shared commit. */
class GroupCommitFailureTest {
    /** The command: what its handler does. */
    enum Act { OK, REFUSE, FAIL, FAIL_BEFORE_COMMIT, FAIL_AFTER_COMMIT }

    private GroupCommitCommandBus bus;
    private final List<String> committed = new ArrayList<>();

    @BeforeEach
    void setUp() {
        bus = new GroupCommitCommandBus(NoTransactionManager.INSTANCE, 1);
        bus.subscribe(Act.class.getName(), message -> {
            Act act = (Act) message.getPayload();
            var root = CurrentUnitOfWork.get().root();
            switch (act) {
                case REFUSE -> throw new LedgerException(ErrorCode.CALL_NOT_FOUND, "no such call");
                case FAIL -> throw new IllegalArgumentException("handler broke after changing state");
                case FAIL_BEFORE_COMMIT -> root.onPrepareCommit(u -> {
                    throw new IllegalStateException("store refused the batch");
                });
                case FAIL_AFTER_COMMIT -> root.afterCommit(u -> {
                    throw new IllegalStateException("projection broke");
                });
                default -> { }
            }
            root.onCommit(u -> committed.add(act.name()));
            return "done " + act;
        });
    }

    @AfterEach
    void tearDown() {
        bus.close();
    }

    private List<CompletableFuture<CommandResultMessage<?>>> batch(Act... acts) {
        bus.pause();
        List<CompletableFuture<CommandResultMessage<?>>> answers = new ArrayList<>();
        for (Act act : acts) {
            CompletableFuture<CommandResultMessage<?>> answer = new CompletableFuture<>();
            CommandMessage<Act> command = GenericCommandMessage.asCommandMessage(act);
            bus.dispatch(command, (c, r) -> answer.complete(r));
            answers.add(answer);
        }
        bus.resume();
        return answers;
    }

    private static CommandResultMessage<?> get(CompletableFuture<CommandResultMessage<?>> answer) throws Exception {
        return answer.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aRefusalIsAnsweredAloneAndTheOthersCommit() throws Exception {
        var answers = batch(Act.OK, Act.REFUSE, Act.OK);

        assertThat(get(answers.get(0)).getPayload()).isEqualTo("done OK");
        assertThat(get(answers.get(1)).exceptionResult()).isInstanceOf(LedgerException.class).hasMessage("no such call");
        assertThat(get(answers.get(2)).getPayload()).isEqualTo("done OK");
        assertThat(bus.batches()).isEqualTo(1);
        assertThat(committed).containsExactly("OK", "OK");
    }

    @Test
    void anUnexpectedFailureStopsTheBatchAndEveryoneHearsItWasNotStored() throws Exception {
        var answers = batch(Act.OK, Act.REFUSE, Act.FAIL, Act.OK);

        assertThat(get(answers.get(0)).exceptionResult()).hasMessageStartingWith("not stored: the commit this command "
                + "shared failed (java.lang.IllegalArgumentException: handler broke after changing state)");
        assertThat(get(answers.get(1)).exceptionResult()).isInstanceOf(LedgerException.class);
        assertThat(get(answers.get(2)).exceptionResult()).isInstanceOf(IllegalArgumentException.class);
        assertThat(get(answers.get(3)).exceptionResult()).hasMessageEndingWith("it is safe to retry");
        assertThat(committed).isEmpty();
    }

    @Test
    void aFailingCommitIsNotStoredForAnyone() throws Exception {
        var answers = batch(Act.OK, Act.FAIL_BEFORE_COMMIT);

        assertThat(get(answers.get(0)).exceptionResult()).hasMessageStartingWith("not stored");
        assertThat(get(answers.get(1)).exceptionResult()).hasMessageStartingWith("not stored");
        assertThat(committed).isEmpty();
    }

    @Test
    void aFailureAfterTheCommitLeavesTheAnswersStanding() throws Exception {
        var answers = batch(Act.OK, Act.FAIL_AFTER_COMMIT);

        assertThat(get(answers.get(0)).getPayload()).isEqualTo("done OK");
        assertThat(get(answers.get(1)).getPayload()).isEqualTo("done FAIL_AFTER_COMMIT");
        assertThat(committed).containsExactlyInAnyOrder("OK", "FAIL_AFTER_COMMIT");
    }
}
