package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One force covers every commit made before it started; a failed force is final. */
class ForcedWritesTest {
    @Test
    void callersThatCommittedWhileAForceRanShareTheNextOne() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        CountDownLatch firstForceRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        ForcedWrites writes = ForcedWrites.by(() -> {
            if (forces.incrementAndGet() == 1) {
                firstForceRunning.countDown();
                await(releaseFirst);
            }
        });
        List<Thread> callers = new ArrayList<>();
        callers.add(start(writes));
        assertThat(firstForceRunning.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 5; i++) {
            callers.add(start(writes));
        }
        while (writes.requests() < 6) {
            Thread.sleep(1);
        }

        releaseFirst.countDown();
        for (Thread caller : callers) {
            caller.join(10_000);
        }

        assertThat(forces.get()).as("one force for the first caller, one for the five that came during it")
                .isEqualTo(2);
        assertThat(writes.forces()).isEqualTo(2);
    }

    @Test
    void aForceThatFailsMakesEveryLaterForceFailWithTheFirstCause() {
        AtomicInteger calls = new AtomicInteger();
        ForcedWrites writes = ForcedWrites.by(() -> {
            calls.incrementAndGet();
            throw new SQLException("No space left on device");
        });

        assertThatThrownBy(writes::force).isInstanceOf(SQLException.class).hasMessage("No space left on device");
        assertThatThrownBy(writes::force).isInstanceOf(SQLException.class)
                .hasMessageContaining("cannot force writes to disk since an earlier failure (No space left on device)");

        assertThat(calls.get()).as("a failed force is never retried").isEqualTo(1);
        assertThat(writes.failure()).contains("No space left on device");
    }

    @Test
    void neverForcesNothingAndNeverFails() throws Exception {
        ForcedWrites writes = ForcedWrites.never();

        writes.force();

        assertThat(writes.forces()).isZero();
        assertThat(writes.failure()).isEmpty();
    }

    @Test
    void entriesTheJournalHasForcedNeedNoForceOfTheStoreUntilAFailure(@TempDir Path dir) throws Exception {
        AtomicInteger forces = new AtomicInteger();
        ForcedWrites writes = ForcedWrites.by(() -> {
            if (forces.incrementAndGet() == 3) {
                throw new SQLException("Input/output error");
            }
        });
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            writes.forceLog(1);
            assertThat(forces.get()).as("nothing journaled yet: the store is forced").isEqualTo(1);

            writes.journalTo(journal);
            writes.append(List.of(batch(0, 3)));
            assertThat(writes.journaledLogSize()).isEqualTo(3);
            writes.forceLog(3);
            assertThat(forces.get()).as("positions 0 to 2 are in the journal").isEqualTo(1);
            writes.forceLog(4);
            assertThat(forces.get()).as("position 3 is not").isEqualTo(2);

            assertThatThrownBy(() -> writes.forceLog(5)).hasMessage("Input/output error");
            assertThatThrownBy(() -> writes.forceLog(3)).as("after a failure, even what the journal holds")
                    .hasMessageContaining("since an earlier failure (Input/output error)");
            assertThat(forces.get()).isEqualTo(3);
        }
    }

    private static ReceiptJournal.Batch batch(long first, int entries) {
        List<ReceiptJournal.Entry> list = new ArrayList<>();
        for (long p = first; p < first + entries; p++) {
            list.add(new ReceiptJournal.Entry(p, "receipt-" + p, -1, ("line " + p).getBytes(StandardCharsets.UTF_8),
                    null));
        }
        return new ReceiptJournal.Batch(first, list);
    }

    private static Thread start(ForcedWrites writes) {
        Thread t = new Thread(() -> {
            try {
                writes.force();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        return t;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
