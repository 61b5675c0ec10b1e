package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.testing.LargeLog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class H2DatabaseTest {
    @TempDir
    Path state;

    @Test
    void createsLedgerMvDbInTheStateDirectory() throws Exception {
        try (H2Database db = H2Database.open(state)) {
            assertThat(db.file()).isEqualTo(state.toAbsolutePath().resolve("ledger.mv.db"));
            assertThat(db.file()).isRegularFile();
        }
    }

    /** Contract section 11: the store is as private as the signing key, 0600, however the umask is set. */
    @Test
    void theStoreFileIsReadableByItsOwnerOnly() throws Exception {
        try (H2Database db = H2Database.open(state)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db.file()))).isEqualTo("rw-------");
        }
        // A state whose file an earlier version let H2 create with the umask's mode is tightened at the next open.
        Files.setPosixFilePermissions(state.resolve("ledger.mv.db"), PosixFilePermissions.fromString("rw-r--r--"));
        try (H2Database db = H2Database.open(state)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db.file()))).isEqualTo("rw-------");
        }
        assertThat(state).isDirectoryNotContaining("glob:**.trace.db");
    }

    @Test
    void h2WritesBehindTheJournalAndLeavesRewritingChunksToHousekeeping() throws Exception {
        try (H2Database db = H2Database.open(state);
             Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                     + " WHERE SETTING_NAME IN ('WRITE_DELAY', 'AUTO_COMPACT_FILL_RATE') ORDER BY SETTING_NAME")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("AUTO_COMPACT_FILL_RATE");
            assertThat(rs.getString(2)).isEqualTo("0");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("WRITE_DELAY");
            // The 20 ms operations.md and architecture.md give: H2 writes the commits of 20 ms as one chunk.
            assertThat(rs.getString(2)).isEqualTo("20").isEqualTo(String.valueOf(H2Database.WRITE_DELAY_MS));
            // H2 serializes and writes its chunks on a thread of its own, each written before the next is serialized.
            FileStore<?> file = ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase().getStore()
                    .getMvStore().getFileStore();
            assertThat(H2Internals.field(FileStore.class, "serializationExecutor").get(file)).isNotNull();
            assertThat(H2Internals.field(FileStore.class, "bufferSaveExecutor").get(file))
                    .as("H2's second thread, which wrote a chunk after the next was serialized").isNull();
        }
    }

    @Test
    void anOpenDatabaseHasItsMarkerAndACleanCloseRemovesIt() throws Exception {
        Path marker = state.resolve(StoreRecovery.MARKER);
        try (H2Database db = H2Database.open(state)) {
            assertThat(marker).isRegularFile();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(marker))).isEqualTo("rw-------");
        }
        assertThat(marker).doesNotExist();
    }

    @Test
    void aMarkerLeftByADeadProcessMakesTheNextOpenRecoverWithEveryCommittedRow() throws Exception {
        commitSeven();
        Files.createFile(state.resolve(StoreRecovery.MARKER));
        assertThat(StoreRecovery.needed(state)).isTrue();

        assertSevenIsThere();
        assertThat(StoreRecovery.needed(state)).isFalse();
    }

    /** A file H2 cannot make sense of is one clear refusal, not an Error from H2's own assertions. */
    @Test
    void aDamagedFileAfterAnUncleanStopIsAStorageExceptionThatSaysSo() throws Exception {
        byte[] noise = new byte[64 * 1024];
        new java.util.Random(7).nextBytes(noise);
        Files.write(state.resolve("ledger.mv.db"), noise);
        Files.createFile(state.resolve(StoreRecovery.MARKER));

        assertThatThrownBy(() -> H2Database.open(state))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("ledger.mv.db")
                .hasMessageContaining("restore it from a backup");
    }

    @Test
    void aMarkerWithoutADatabaseFileNeedsNoRecovery() throws Exception {
        Files.createFile(state.resolve(StoreRecovery.MARKER));

        assertThat(StoreRecovery.needed(state)).isFalse();
    }

    @Test
    void aSecondOpenWhileTheFirstRunsIsRefusedWithoutARecovery() throws Exception {
        try (H2Database db = H2Database.open(state)) {
            assertThat(StoreRecovery.needed(state)).isTrue();
            assertThatThrownBy(() -> H2Database.open(state))
                    .isInstanceOf(StateInUseException.class)
                    .hasMessageContaining("is in use by another process");
        }
    }

    @Test
    void everyCommitIsForcedThroughOneSharedForce() throws Exception {
        try (H2Database db = H2Database.open(state); Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (v INT)");
            c.commit();
            long before = db.forcedWrites().forces();
            db.forcedWrites().force();
            assertThat(db.forcedWrites().forces()).isEqualTo(before + 1);
            assertThat(db.forcedWrites().failure()).isEmpty();
        }
    }

    @Test
    void pooledConnectionsDoNotAutoCommit() throws Exception {
        try (H2Database db = H2Database.open(state); Connection c = db.dataSource().getConnection()) {
            assertThat(c.getAutoCommit()).isFalse();
        }
    }

    @Test
    void committedRowsSurviveCloseAndReopenInTheSameJvm() throws Exception {
        commitSeven();
        assertSevenIsThere();
    }

    @Test
    void closeReleasesTheFileLock() throws Exception {
        H2Database db = H2Database.open(state);
        db.close();
        // Inside one JVM a lock still held by H2 would make tryLock throw OverlappingFileLockException.
        try (FileChannel channel = FileChannel.open(state.resolve("ledger.mv.db"), StandardOpenOption.WRITE);
             FileLock lock = channel.tryLock()) {
            assertThat(lock).isNotNull();
        }
    }

    @Test
    void refusesAStateThatAnotherProcessHasOpen() throws Exception {
        Process holder = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                HoldDatabaseOpen.class.getName(), state.toAbsolutePath().toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("open");

            assertThatThrownBy(() -> H2Database.open(state))
                    .isInstanceOf(StateInUseException.class)
                    .hasMessage("the ledger state at " + state.toAbsolutePath() + " is in use by another process; "
                            + "stop that process or pass a different --state directory");
        } finally {
            holder.getOutputStream().close();
            if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                holder.destroyForcibly();
            }
        }
    }

    @Test
    void refusesAMissingStateDirectory() {
        Path missing = state.resolve("nope");
        assertThatThrownBy(() -> H2Database.open(missing))
                .isInstanceOf(StorageException.class)
                .hasMessage("the ledger state directory " + missing.toAbsolutePath() + " does not exist; run "
                        + "'ledger-app init --state " + missing.toAbsolutePath() + "' first");
    }

    @Test
    void refusesAPathWithASemicolonBecauseH2WouldReadItAsSettings() throws Exception {
        Path odd = Files.createDirectory(state.resolve("a;TRACE_LEVEL_FILE=3"));
        assertThatThrownBy(() -> H2Database.open(odd))
                .isInstanceOf(StorageException.class)
                .hasMessage("the ledger state directory " + odd.toAbsolutePath() + " contains ';', which H2 cannot "
                        + "open; use a path without ';'");
    }

    @Test
    void aCorruptDatabaseFileGivesOneLineNamingTheFile() throws Exception {
        Files.write(state.resolve("ledger.mv.db"), "this is not an H2 database".repeat(200).getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> H2Database.open(state))
                .isInstanceOf(StorageException.class)
                .isNotInstanceOf(StateInUseException.class)
                .hasMessageStartingWith("cannot open the ledger database " + state.toAbsolutePath().resolve("ledger.mv.db")
                        + ": IO Exception: ")
                .hasMessageEndingWith("; if the file is damaged, restore it from a backup")
                .hasMessageNotContaining("\n");
    }

    @Test
    void refusesAPoolSizeBelowOne() {
        assertThatThrownBy(() -> H2Database.open(state, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("poolSize must be at least 1, got 0");
    }

    /** Creates table t with the one row 7, committed, and closes the database. */
    private void commitSeven() throws Exception {
        try (H2Database db = H2Database.open(state); Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (v INT)");
            s.execute("INSERT INTO t VALUES (7)");
            c.commit();
        }
    }

    /** Opens the database and finds the row 7 in table t. */
    private void assertSevenIsThere() throws Exception {
        try (H2Database db = H2Database.open(state); Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(7);
        }
    }

    /**
     * A trickle of receipts does not start a journal segment (64 KiB of zeros) every second: the checkpoint waits until
     * the segment holds {@link H2Database#TRICKLE_BYTES} or is {@link H2Database#TRICKLE_CHECKPOINT_MS} old.
     */
    @Test
    void aCheckpointWaitsForASegmentOfATrickleToFillOrAge() throws Exception {
        LargeLog receipts = new LargeLog("ledger.test/trickle", "0a1b2c3d", Instant.parse("2026-12-06T00:00:00Z"));
        try (H2Database db = H2Database.open(state)) {
            try (Connection c = db.dataSource().getConnection()) {
                LedgerLog.create(c);
                c.commit();
            }
            int session = 0;
            receipts.append(db, session++, 1, 2, false, true);
            long started = System.nanoTime();
            Path segment = newestSegment();

            db.checkpoint(started);
            assertThat(newestSegment()).as("a segment of two receipts, just started").isEqualTo(segment);

            db.checkpoint(started + TimeUnit.MILLISECONDS.toNanos(H2Database.TRICKLE_CHECKPOINT_MS + 1000));
            assertThat(newestSegment()).as("the same segment, past the trickle's wait").isNotEqualTo(segment);
            assertThat(ReceiptJournal.segments(state)).hasSize(1);

            segment = newestSegment();
            // Appends fill the zeros written in advance, and the file grows once they are full; the checkpoints of
            // the running ledger may start the next segment first, once this one holds TRICKLE_BYTES.
            while (newestSegment().equals(segment) && Files.size(segment) <= ReceiptJournal.PREALLOCATE_MIN) {
                receipts.append(db, session++, 1, 2, false, true);
            }
            db.checkpoint(System.nanoTime());
            assertThat(newestSegment()).as("a segment past %d bytes", H2Database.TRICKLE_BYTES).isNotEqualTo(segment);
        }
    }

    private Path newestSegment() throws Exception {
        List<Path> segments = ReceiptJournal.segments(state);
        return segments.get(segments.size() - 1);
    }
}
