package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.engine.NotStoredException;
import io.micronaut.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hand-off of an answer from the command worker that commits it to the request's event loop: the worker only
 * completes the future, the rendering runs on the loop, and a failure is rendered there as the contract's error.
 */
class RepliesTest {
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-event-loop"));
    private final AtomicReference<String> renderedOn = new AtomicReference<>();
    private final Function<String, HttpResponse<byte[]>> render = a -> {
        renderedOn.set(Thread.currentThread().getName());
        return Replies.ok(Replies.object().put("answer", a));
    };

    @AfterEach
    void stopLoop() {
        loop.shutdownNow();
    }

    @Test
    void anAnswerCompletedByTheWorkerIsRenderedOnTheRequestsLoop() throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        CompletableFuture<HttpResponse<byte[]>> response = Replies.later(answer, render, loop);

        onWorker(() -> answer.complete("stored"));

        HttpResponse<byte[]> rendered = response.get(10, TimeUnit.SECONDS);
        assertThat(renderedOn.get()).isEqualTo("test-event-loop");
        assertThat(rendered.code()).isEqualTo(200);
        assertThat(new String(rendered.body())).isEqualTo("{\"answer\":\"stored\"}");
    }

    @Test
    void aFailureIsRenderedOnTheLoopAsTheContractsError() throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        AtomicReference<String> failedOn = new AtomicReference<>();
        CompletableFuture<HttpResponse<byte[]>> response = Replies.later(answer, render, loop)
                .whenComplete((r, failure) -> failedOn.set(Thread.currentThread().getName()));

        onWorker(() -> answer.completeExceptionally(new NotStoredException("the commit failed", null)));

        HttpResponse<byte[]> rendered = response.get(10, TimeUnit.SECONDS);
        assertThat(rendered.code()).isEqualTo(503);
        assertThat(rendered.header("Retry-After")).isEqualTo("1");
        assertThat(new String(rendered.body())).contains("\"message\":\"the commit failed\"");
        assertThat(failedOn.get()).isEqualTo("test-event-loop");
        assertThat(renderedOn.get()).isNull();
    }

    @Test
    void outsideARequestTheAnswerIsRenderedWhereItCompletes() throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        CompletableFuture<HttpResponse<byte[]>> response = Replies.later(answer, render);

        onWorker(() -> answer.complete("stored"));

        assertThat(response.get(10, TimeUnit.SECONDS).code()).isEqualTo(200);
        assertThat(renderedOn.get()).isEqualTo("test-command-worker");
    }

    /** Runs {@code completion} on a thread of its own, as a command worker completes an answer, and waits for it. */
    private static void onWorker(Runnable completion) throws InterruptedException {
        Thread worker = new Thread(completion, "test-command-worker");
        worker.start();
        worker.join();
    }
}
