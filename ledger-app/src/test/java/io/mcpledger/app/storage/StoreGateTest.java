package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class StoreGateTest {
    @Test
    void anExclusiveSectionRunsOnceTheCallsUnderWayHaveReturnedAndHoldsNewCallsBack() throws Exception {
        StoreGate gate = new StoreGate(() -> null);
        gate.enter();
        AtomicBoolean callUnderWay = new AtomicBoolean(true);
        CountDownLatch sectionStarted = new CountDownLatch(1);
        CountDownLatch endSection = new CountDownLatch(1);
        CompletableFuture<Boolean> section = CompletableFuture.supplyAsync(() -> gate.exclusive(() -> {
            sectionStarted.countDown();
            await(endSection);
            return callUnderWay.get();
        }));

        assertThat(sectionStarted.await(200, TimeUnit.MILLISECONDS)).as("started while a call was under way").isFalse();
        callUnderWay.set(false);
        gate.exit();
        assertThat(sectionStarted.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> newCall = CompletableFuture.runAsync(() -> {
            gate.enter();
            gate.exit();
        });
        Thread.sleep(2 * TimeUnit.NANOSECONDS.toMillis(StoreGate.YIELD_NANOS));
        assertThat(newCall).as("a call entered during the section").isNotDone();
        endSection.countDown();

        assertThat(section.get(5, TimeUnit.SECONDS)).as("a call was under way during the section").isFalse();
        newCall.get(5, TimeUnit.SECONDS);
    }

    /**
     * A call under way may wait for a row lock that another transaction releases only at its commit: that commit
     * goes ahead after a short wait behind the pending section, and the section runs once both have returned.
     */
    @Test
    void aCallWaitsForAPendingSectionOnlyBrieflySoThatTheCallsItWaitsForCanFinish() throws Exception {
        StoreGate gate = new StoreGate(() -> null);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch committed = new CountDownLatch(1);
        CompletableFuture<Void> waitingForLock = CompletableFuture.runAsync(() -> {
            gate.enter();
            entered.countDown();
            try {
                await(committed);
            } finally {
                gate.exit();
            }
        });
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<String> section = CompletableFuture.supplyAsync(() -> gate.exclusive(() -> "ran"));
        Thread.sleep(50);
        CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
            gate.enter();
            committed.countDown();
            gate.exit();
        });

        commit.get(5, TimeUnit.SECONDS);
        waitingForLock.get(5, TimeUnit.SECONDS);
        assertThat(section.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
    }

    @Test
    void anExclusiveSectionFailsWithoutRunningOnceTheStoreHasFailed() throws Exception {
        AtomicReference<String> failure = new AtomicReference<>();
        StoreGate gate = new StoreGate(failure::get);
        gate.enter(); // a statement that will never return, as H2's after a failed write
        AtomicBoolean ran = new AtomicBoolean();
        CompletableFuture<Void> section = CompletableFuture.runAsync(() -> gate.exclusive(() -> {
            ran.set(true);
            return null;
        }));
        Thread.sleep(100);
        failure.set("Writing to ledger.mv.db failed");

        assertThatThrownBy(() -> section.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the store failed to write: Writing to ledger.mv.db failed");
        assertThat(ran).isFalse();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
