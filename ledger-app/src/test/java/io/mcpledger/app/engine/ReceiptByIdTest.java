package io.mcpledger.app.engine;

import static io.mcpledger.app.engine.RestartIsReplayTest.T0;
import static io.mcpledger.app.engine.RestartIsReplayTest.open;
import static io.mcpledger.app.engine.RestartIsReplayTest.settings;
import static io.mcpledger.app.engine.RestartIsReplayTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.storage.ForcedWrites;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.SessionAnswer;
import io.mcpledger.domain.session.SessionIds;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A receipt read by id (from the log's table, where H2 shows a commit before the committing thread has forced it) is
 * returned only once it is on stable storage: at once when the journal has forced it, else after a forced write that
 * began after the read. So a reader never holds a receipt a power cut could take back and the ledger then sign its
 * position again for another, and reads of answered receipts do not force the store.
 */
class ReceiptByIdTest {
    @TempDir
    Path dir;

    @Test
    void aReceiptTheJournalHasForcedIsReadWithoutAForcedWriteOfTheStore() throws Exception {
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir,
                PolicyFiles.parse(RestartIsReplayTest.QUOTE_AND_DISCOUNT)), Clock.fixed(T0, ZoneOffset.UTC))) {
            String id = SessionIds.issue(token(1), RandomIds.sessionRandom());
            SessionAnswer opened = ledger.commands().sendAndWait(new InitializeSession(id, token(1), "alice",
                    "pricing", "2025-06-18", null, null, T0));
            Receipt stored = opened.receipt();
            ForcedWrites forcedWrites = ledger.database().forcedWrites();

            CompletableFuture<LedgerLog.Located> read = new CompletableFuture<>();
            // Forced writes take this monitor: while the test holds it, none can start or end.
            synchronized (forcedWrites) {
                new Thread(() -> read.complete(ledger.receipt(stored.id())), "reader").start();
                assertThat(read.get(30, TimeUnit.SECONDS).receipt().id()).as("answered: in the journal")
                        .isEqualTo(stored.id());
            }
            assertThat(ledger.receipt("0".repeat(26))).as("an unknown id").isNull();
        }
    }

    @Test
    void aReceiptCommittedBeforeItsJournalWriteReturnedWaitsForAForcedWrite() throws Exception {
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), settings(dir,
                PolicyFiles.parse(RestartIsReplayTest.QUOTE_AND_DISCOUNT)), Clock.fixed(T0, ZoneOffset.UTC))) {
            // Committed as a commit worker commits, before its journal write: visible, not yet on the disk.
            Receipt committed = new LargeLog("ledger.test/by-id", "0a1b2c3d", T0).sessionReceipts(0, 1).get(0);
            try (Connection c = ledger.database().dataSource().getConnection()) {
                LedgerLog.insert(c, LedgerLog.reserve(c, 1),
                        List.of(new LedgerLog.Row(committed.session(), committed, null)), stream -> -1);
                c.commit();
            }
            ForcedWrites forcedWrites = ledger.database().forcedWrites();

            CompletableFuture<LedgerLog.Located> read = new CompletableFuture<>();
            Thread reader = new Thread(() -> read.complete(ledger.receipt(committed.id())), "reader");
            synchronized (forcedWrites) {
                reader.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!blockedOn(reader, forcedWrites) && reader.getState() != Thread.State.TERMINATED) {
                    assertThat(System.nanoTime()).as("the reader neither returned nor waited for a forced write")
                            .isLessThan(deadline);
                    Thread.onSpinWait();
                }
                assertThat(read).as("the read returned without a forced write").isNotDone();
            }
            assertThat(read.get(30, TimeUnit.SECONDS).receipt().id()).isEqualTo(committed.id());
        }
    }

    /** Whether {@code thread} waits to enter {@code monitor}. */
    private static boolean blockedOn(Thread thread, Object monitor) {
        ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
        return info != null && info.getThreadState() == Thread.State.BLOCKED && info.getLockInfo() != null
                && info.getLockInfo().getIdentityHashCode() == System.identityHashCode(monitor);
    }
}
