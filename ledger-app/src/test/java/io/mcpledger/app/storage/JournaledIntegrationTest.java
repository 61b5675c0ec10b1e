package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestDatabases.Kind;
import io.mcpledger.domain.crypto.SigningKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sequencer on an H2 store with a journal: a checkpoint covers only entries on stable storage, those the journal
 * has forced are taken without a forced write of the store, and the store is forced first only for entries the journal
 * does not hold ({@link ForcedWrites#journaledLogSize}); the checkpoint itself is forced in the journal.
 */
class JournaledIntegrationTest {
    private static final String ORIGIN = "ledger.test/journaled";
    private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
    private static final LargeLog RECEIPTS = new LargeLog(ORIGIN, "0a1b2c3d", Instant.parse("2026-12-01T00:00:00Z"));

    private final TestDatabases databases = new TestDatabases();

    @TempDir
    Path journalDirectory;

    @AfterEach
    void closeAll() throws Exception {
        databases.close();
    }

    @Test
    void aCheckpointStopsAtTheJournalsEndAndForcesTheStoreOnlyForWhatTheJournalLacks() throws Exception {
        DataSource database = databases.create(Kind.H2, 2, LedgerLog::create);
        AtomicInteger storeForces = new AtomicInteger();
        ForcedWrites writes = ForcedWrites.by(storeForces::incrementAndGet);
        try (ReceiptJournal journal = ReceiptJournal.open(journalDirectory, "")) {
            writes.journalTo(journal);
            LogSequencer sequencer = LogSequencer.open(database, new LedgerLog(database), writes, KEY, ORIGIN,
                    LedgerSettings.StoreCaches.DEFAULT_TILES);
            assertThat(writes.journaledLogSize()).isZero();

            writes.append(List.of(commit(database, 0, 3)));
            ReceiptJournal.Batch second = commit(database, 1, 2);
            assertThat(writes.journaledLogSize()).isEqualTo(3);
            int forces = storeForces.get();

            // The second batch is committed, but its forced write has not returned: no checkpoint may cover it yet.
            assertThat(sequencer.integrate()).isEqualTo(3);
            assertThat(sequencer.latest().size()).isEqualTo(3);
            assertThat(storeForces.get() - forces).as("the checkpoint is forced in the journal, not with the store")
                    .isZero();
            String three = sequencer.latest().note();

            writes.append(List.of(second));
            assertThat(sequencer.integrate()).isEqualTo(2);
            assertThat(sequencer.latest().size()).isEqualTo(5);
            assertThat(storeForces.get() - forces).isZero();
            String five = sequencer.latest().note();

            // Committed and never journaled (as entries a recovery applied are, before the journal's first append):
            // the store is forced before the checkpoint covers them.
            commit(database, 2, 4);
            assertThat(sequencer.integrate()).isEqualTo(4);
            assertThat(sequencer.latest().size()).isEqualTo(9);
            assertThat(storeForces.get() - forces).isEqualTo(1);

            assertThat(sequencer.integrate()).as("nothing new: nothing forced").isZero();
            assertThat(storeForces.get() - forces).isEqualTo(1);
            assertThat(ReceiptJournal.readAll(journalDirectory, "").checkpoints()).containsExactly(
                    new ReceiptJournal.SignedCheckpoint(3, three), new ReceiptJournal.SignedCheckpoint(5, five),
                    new ReceiptJournal.SignedCheckpoint(9, sequencer.latest().note()));
        }
    }

    @Test
    void withoutAJournalTheStoreIsForcedBeforeTheCheckpointCoversTheEntries() throws Exception {
        DataSource database = databases.create(Kind.H2, 2, LedgerLog::create);
        List<Long> sizeStoredAtEachForce = new ArrayList<>();
        ForcedWrites writes = ForcedWrites.by(() -> sizeStoredAtEachForce.add(storedTreeSize(database)));
        LogSequencer sequencer = LogSequencer.open(database, new LedgerLog(database), writes, KEY, ORIGIN,
                LedgerSettings.StoreCaches.DEFAULT_TILES);
        sizeStoredAtEachForce.clear();

        writes.append(List.of(commit(database, 0, 3)));
        assertThat(writes.journaledLogSize()).as("no journal: appends force the store").isZero();
        commit(database, 1, 2);
        assertThat(sequencer.integrate()).isEqualTo(5);

        // The append's force, then one before the checkpoint of size 5 is stored and one after.
        assertThat(sizeStoredAtEachForce).containsExactly(0L, 0L, 5L);
    }

    @Test
    void aCheckpointPublishedWithoutAForcedStoreIsStoredAgainFromTheJournalAfterAPowerCut() throws Exception {
        PowerCutFileSystem.install();
        Path before = Files.createDirectories(journalDirectory.resolve("before"));
        H2Database h2 = H2Database.open(before, 2, PowerCutFileSystem.PREFIX, true);
        String published;
        try {
            try (Connection c = h2.dataSource().getConnection()) {
                LedgerLog.create(c);
                c.commit();
            }
            LogSequencer sequencer = LogSequencer.open(h2.dataSource(), new LedgerLog(h2.dataSource()),
                    h2.forcedWrites(), KEY, ORIGIN, LedgerSettings.StoreCaches.DEFAULT_TILES);
            h2.forcedWrites().append(List.of(commit(h2.dataSource(), 0, 3)));
            assertThat(sequencer.integrate()).isEqualTo(3);
            published = sequencer.latest().note();
            // Not one of the writes that were not forced reaches the disk: the tree's commit among them.
            PowerCutFileSystem.cut(new Random() {
                @Override
                public boolean nextBoolean() {
                    return false;
                }
            });
        } finally {
            closeAfterCut(h2);
        }
        Path after = PowerCutFileSystem.restart(before, journalDirectory.resolve("after"));

        try (H2Database reopened = H2Database.open(after, 2, "", true)) {
            DataSource database = reopened.dataSource();
            try (Connection c = database.getConnection()) {
                assertThat(storedTreeSize(database)).as("the store lost the tree of size 3").isZero();
                assertThat(SignedCheckpoints.note(c, 3)).as("the published checkpoint, stored again").isEqualTo(
                        published);
                c.commit();
            }
            LogSequencer sequencer = LogSequencer.open(database, new LedgerLog(database), reopened.forcedWrites(),
                    KEY, ORIGIN, LedgerSettings.StoreCaches.DEFAULT_TILES);
            assertThat(sequencer.integrate()).isEqualTo(3);
            assertThat(sequencer.latest().note()).isEqualTo(published);
        }

        // A journal whose checkpoint of size 3 is another note than the stored one: the log would sign two trees of
        // that size, so the open refuses and stores nothing.
        try (ReceiptJournal journal = ReceiptJournal.open(after, "")) {
            journal.appendCheckpoint(new ReceiptJournal.SignedCheckpoint(3, published.replace(ORIGIN, ORIGIN + "x")));
        }
        assertThatThrownBy(() -> H2Database.open(after, 2, "", true)).isInstanceOf(StorageException.class)
                .hasMessageContaining("another signed checkpoint of size 3");
        assertThatThrownBy(() -> H2Database.open(after, 2, "", true)).as("the journal stays as it was")
                .hasMessageContaining("another signed checkpoint of size 3");
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + after.resolve("ledger")
                + ";ACCESS_MODE_DATA=r", "sa", "")) {
            assertThat(SignedCheckpoints.note(c, 3)).as("the stored checkpoint, unchanged").isEqualTo(published);
        }
    }

    private static void closeAfterCut(H2Database h2) {
        try {
            h2.close();
        } catch (RuntimeException e) {
            // Its files fail after the cut, as a dead process's do.
        }
    }

    /** The integrated size a reader sees: what the sequencer has committed. */
    private static long storedTreeSize(DataSource database) throws SQLException {
        try (Connection c = database.getConnection();
             ResultSet r = c.createStatement().executeQuery("SELECT tree_size FROM log_head WHERE id = 1")) {
            // -1 while the sequencer's first transaction, which inserts the row, is still open
            long size = r.next() ? r.getLong(1) : -1;
            c.commit();
            return size;
        }
    }

    private static ReceiptJournal.Batch commit(DataSource database, int session, int receipts) throws SQLException {
        List<LedgerLog.Row> rows = new ArrayList<>();
        RECEIPTS.sessionReceipts(session, receipts).forEach(r -> rows.add(new LedgerLog.Row(r.session(), r, null)));
        try (Connection c = database.getConnection()) {
            ReceiptJournal.Batch batch = LedgerLog.insert(c, LedgerLog.reserve(c, rows.size()), rows, stream -> -1);
            c.commit();
            return batch;
        }
    }
}
