package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.session.ClientCommand;
import io.mcpledger.domain.session.SessionCommand;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which worker decides a command: a session's commands the worker of its id, a client stream's (the sessionless calls)
 * the worker of its tokenRef, so the streams of many clients are decided on both workers, and each stream's commands on
 * one, in the order they were sent. The first test fails on a bus that sends every client command to the first worker,
 * as one did before (one worker then decided and signed every call of MCP 2026-07-28).
 */
class GroupCommitRoutingTest {
    /** A command of one client stream. */
    record ClientNote(String tokenRef, String text) implements ClientCommand {
    }

    /** A command of one session. */
    record SessionNote(String sessionId, String text) implements SessionCommand {
    }

    /** Each decided command: the thread that decided it and its text, in the order decided. */
    private final List<String[]> decided = new CopyOnWriteArrayList<>();
    private GroupCommitCommandBus bus;

    @BeforeEach
    void start() {
        TransactionManager transactions = () -> new Transaction() {
            @Override
            public void commit() {
            }

            @Override
            public void rollback() {
            }
        };
        bus = new GroupCommitCommandBus(transactions, AxonSetup.COMMAND_WORKERS);
        bus.subscribe(ClientNote.class.getName(), message -> record(((ClientNote) message.getPayload()).text()));
        bus.subscribe(SessionNote.class.getName(), message -> record(((SessionNote) message.getPayload()).text()));
    }

    private String record(String text) {
        decided.add(new String[] {Thread.currentThread().getName(), text});
        return text;
    }

    @AfterEach
    void stop() {
        bus.close();
    }

    private CompletableFuture<CommandResultMessage<?>> send(Object payload) {
        CompletableFuture<CommandResultMessage<?>> answer = new CompletableFuture<>();
        bus.dispatch(GenericCommandMessage.asCommandMessage(payload), (command, result) -> answer.complete(result));
        return answer;
    }

    private static String tokenRef(int client) {
        return String.format("%064x", 1_000_003L * (client + 1));
    }

    @Test
    void theStreamsOfManyClientsAreDecidedOnEveryWorker() throws Exception {
        List<CompletableFuture<CommandResultMessage<?>>> answers = new ArrayList<>();
        for (int client = 0; client < 32; client++) {
            answers.add(send(new ClientNote(tokenRef(client), "client-" + client)));
        }
        for (CompletableFuture<CommandResultMessage<?>> answer : answers) {
            assertThat(answer.get(30, TimeUnit.SECONDS).isExceptional()).isFalse();
        }

        Set<String> threads = new HashSet<>();
        decided.forEach(d -> threads.add(d[0]));
        assertThat(threads).as("32 clients' calls are decided by every worker, not all by the first")
                .hasSize(AxonSetup.COMMAND_WORKERS);
    }

    @Test
    void eachStreamIsDecidedByOneWorkerInTheOrderItsCommandsCame() throws Exception {
        List<CompletableFuture<CommandResultMessage<?>>> answers = new ArrayList<>();
        Map<String, List<String>> sent = new HashMap<>();
        for (int k = 0; k < 400; k++) {
            int client = k % 8;
            if (k % 5 == 0) {
                answers.add(send(new SessionNote("session-" + client, "session-" + client + "-" + k)));
                continue;
            }
            String text = "client-" + client + "-" + k;
            sent.computeIfAbsent("client-" + client, c -> new ArrayList<>()).add(text);
            answers.add(send(new ClientNote(tokenRef(client), text)));
        }
        for (CompletableFuture<CommandResultMessage<?>> answer : answers) {
            assertThat(answer.get(30, TimeUnit.SECONDS).isExceptional()).isFalse();
        }

        Map<String, List<String>> order = new HashMap<>();
        Map<String, Set<String>> threads = new HashMap<>();
        for (String[] d : decided) {
            if (d[1].startsWith("client-")) {
                String client = d[1].substring(0, d[1].lastIndexOf('-'));
                order.computeIfAbsent(client, c -> new ArrayList<>()).add(d[1]);
                threads.computeIfAbsent(client, c -> new HashSet<>()).add(d[0]);
            }
        }
        assertThat(order).as("each stream's commands in the order sent").isEqualTo(sent);
        threads.forEach((client, on) -> assertThat(on).as(client + " decided by one worker").hasSize(1));
    }

    @Test
    void aCommandWhoseTokenIsNotAClientTokensHashGoesToTheFirstWorker() {
        ClientCommand malformed = () -> {
            throw new IllegalArgumentException("a client token's SHA-256 is 64 lowercase hex characters");
        };

        assertThat(GroupCommitCommandBus.workerIndex(malformed, 2)).isZero();
        assertThat(GroupCommitCommandBus.workerIndex("ledger-wide", 2)).isZero();
    }
}
