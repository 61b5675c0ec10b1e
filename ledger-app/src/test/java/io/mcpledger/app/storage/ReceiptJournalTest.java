package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import io.mcpledger.app.testing.TestIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal of the log's appends ({@link ReceiptJournal}): what it reads back is what was appended, a torn or
 * damaged last record ends it, damage anywhere else is refused, an append returns only once its record is forced (a
 * power cut right after keeps it), and the replay into the log adds what is missing and refuses a journal that does
 * not continue the log.
 */
class ReceiptJournalTest {
    @TempDir
    Path dir;

    private static ReceiptJournal.Batch batch(long first, int count) {
        List<ReceiptJournal.Entry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long position = first + i;
            byte[] document = position % 3 == 0 ? ("{\"policy\":" + position + "}").getBytes(StandardCharsets.UTF_8) : null;
            entries.add(new ReceiptJournal.Entry(position, "r-" + position, position % 2 == 0 ? -1 : position - 1,
                    ("{\"receipt\":" + position + ",\"é\":true}").getBytes(StandardCharsets.UTF_8), document));
        }
        return new ReceiptJournal.Batch(first, entries);
    }

    private static void assertSame(List<ReceiptJournal.Batch> read, List<ReceiptJournal.Batch> written) {
        assertThat(read).hasSameSizeAs(written);
        for (int b = 0; b < written.size(); b++) {
            assertThat(read.get(b).first()).isEqualTo(written.get(b).first());
            List<ReceiptJournal.Entry> got = read.get(b).entries();
            List<ReceiptJournal.Entry> want = written.get(b).entries();
            assertThat(got).hasSameSizeAs(want);
            for (int i = 0; i < want.size(); i++) {
                assertThat(got.get(i).position()).isEqualTo(want.get(i).position());
                assertThat(got.get(i).receiptId()).isEqualTo(want.get(i).receiptId());
                assertThat(got.get(i).prev()).isEqualTo(want.get(i).prev());
                assertThat(got.get(i).line()).isEqualTo(want.get(i).line());
                assertThat(got.get(i).document()).isEqualTo(want.get(i).document());
            }
        }
    }

    @Test
    void readsBackWhatWasAppendedAcrossSegmentsAndDropsOnlyTheOlderOnes() throws Exception {
        List<ReceiptJournal.Batch> written = List.of(batch(0, 1), batch(1, 5), batch(6, 64), batch(70, 2));
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            journal.append(written.subList(0, 2));
            assertThat(journal.segmentBytes()).isPositive();
            journal.rotate();
            assertThat(journal.segmentBytes()).isZero();
            journal.append(written.subList(2, 3));
            journal.append(written.subList(3, 4));
            assertThat(ReceiptJournal.segments(dir)).hasSize(2);
            assertSame(ReceiptJournal.read(dir, ""), written);

            journal.dropOlder();
            assertThat(ReceiptJournal.segments(dir)).hasSize(1);
            assertSame(ReceiptJournal.read(dir, ""), written.subList(2, 4));
        }
        // A new journal starts after the segments there, which stay until a forced store holds them.
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            assertThat(ReceiptJournal.segments(dir)).hasSize(2);
            assertSame(ReceiptJournal.read(dir, ""), written.subList(2, 4));
            journal.dropAll();
        }
        assertThat(ReceiptJournal.segments(dir)).isEmpty();
    }

    @Test
    void aTornOrDamagedLastRecordEndsTheJournal() throws Exception {
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            journal.append(List.of(batch(0, 3)));
            journal.append(List.of(batch(3, 4)));
        }
        Path segment = ReceiptJournal.segments(dir).get(0);
        int first = ReceiptJournal.record(batch(0, 3)).length;
        byte[] written = Files.readAllBytes(segment);
        assertThat(written).hasSize(ReceiptJournal.PREALLOCATE_MIN);
        byte[] whole = java.util.Arrays.copyOf(written, first + ReceiptJournal.record(batch(3, 4)).length);

        for (int cut = first; cut < whole.length; cut += 7) {
            // Torn at the end of the file, and torn inside the zeros written in advance.
            Files.write(segment, java.util.Arrays.copyOf(whole, cut));
            assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 3)));
            Files.write(segment, java.util.Arrays.copyOf(java.util.Arrays.copyOf(whole, cut), written.length));
            assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 3)));
        }
        byte[] flipped = whole.clone();
        flipped[whole.length - 3] ^= 0x20;
        Files.write(segment, flipped);
        assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 3)));

        byte[] zeros = java.util.Arrays.copyOf(whole, whole.length + 4096);
        Files.write(segment, zeros);
        assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 3), batch(3, 4)));

        // The open after such a stop starts a segment of zeros after the torn one: not a later segment with records.
        Files.write(segment, java.util.Arrays.copyOf(whole, whole.length - 5));
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            assertThat(ReceiptJournal.segments(dir)).hasSize(2);
            assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 3)));
        }
    }

    @Test
    void checkpointsAreReadBackInTheirOrderBetweenTheBatchesAndATornOneEndsTheJournal() throws Exception {
        ReceiptJournal.SignedCheckpoint three = new ReceiptJournal.SignedCheckpoint(3, "origin\n3\nroot=\n\n— é\n");
        ReceiptJournal.SignedCheckpoint seven = new ReceiptJournal.SignedCheckpoint(7, "origin\n7\nroot=\n\n— sig\n");
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            journal.append(List.of(batch(0, 3)));
            journal.appendCheckpoint(three);
            journal.append(List.of(batch(3, 4)));
            journal.rotate();
            journal.appendCheckpoint(seven);
            journal.append(List.of(batch(7, 1)));
        }
        ReceiptJournal.Contents read = ReceiptJournal.readAll(dir, "");
        assertSame(read.batches(), List.of(batch(0, 3), batch(3, 4), batch(7, 1)));
        assertThat(read.checkpoints()).containsExactly(three, seven);

        // The second segment torn inside its checkpoint: that record and what follows it are not read.
        Path second = ReceiptJournal.segments(dir).get(1);
        Files.write(second, java.util.Arrays.copyOf(Files.readAllBytes(second),
                ReceiptJournal.record(seven).length - 2));
        read = ReceiptJournal.readAll(dir, "");
        assertSame(read.batches(), List.of(batch(0, 3), batch(3, 4)));
        assertThat(read.checkpoints()).containsExactly(three);
    }

    /**
     * A segment is written with zeros before appends go to it, so that they write over blocks the file has: the file
     * does not grow with them, and a rotation sizes the next segment after what the last one took.
     */
    @Test
    void segmentsAreWrittenInAdvanceAndAppendsWriteOverTheirZeros() throws Exception {
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            Path first = ReceiptJournal.segments(dir).get(0);
            assertThat(Files.size(first)).isEqualTo(ReceiptJournal.PREALLOCATE_MIN);
            journal.append(List.of(batch(0, 64)));
            journal.append(List.of(batch(64, 1)));
            assertThat(Files.size(first)).isEqualTo(ReceiptJournal.PREALLOCATE_MIN);
            assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 64), batch(64, 1)));

            // A rotation that failed after creating the next segment left zeros in it: the next one uses it.
            Path next = dir.resolve(ReceiptJournal.PREFIX + 2);
            Files.write(next, new byte[4096]);
            journal.rotate();
            assertThat(Files.size(next)).isEqualTo(ReceiptJournal.PREALLOCATE_MIN);
            journal.append(List.of(batch(65, 2)));
            assertSame(ReceiptJournal.read(dir, ""), List.of(batch(0, 64), batch(64, 1), batch(65, 2)));

            // A segment with anything else in it is not one this journal left: it is never written over.
            Path taken = dir.resolve(ReceiptJournal.PREFIX + 3);
            Files.write(taken, new byte[] {0, 0, 1});
            assertThatThrownBy(journal::rotate).isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
            assertThat(Files.readAllBytes(taken)).containsExactly(0, 0, 1);
            Files.delete(taken);
        }
        assertThat(ReceiptJournal.preallocation(0)).isEqualTo(ReceiptJournal.PREALLOCATE_MIN);
        assertThat(ReceiptJournal.preallocation(3 << 20)).isEqualTo((3 << 20) + (3 << 18));
        assertThat(ReceiptJournal.preallocation(100_000)).isEqualTo(2 * ReceiptJournal.PREALLOCATE_MIN);
        assertThat(ReceiptJournal.preallocation(1L << 40)).isEqualTo(ReceiptJournal.PREALLOCATE_MAX);
    }

    @Test
    void damageBeforeTheLastRecordWrittenIsRefused() throws Exception {
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            journal.append(List.of(batch(0, 3)));
            journal.rotate();
            journal.append(List.of(batch(3, 4)));
        }
        Path older = ReceiptJournal.segments(dir).get(0);
        byte[] bytes = Files.readAllBytes(older);
        bytes[ReceiptJournal.record(batch(0, 3)).length - 3] ^= 0x20;
        Files.write(older, bytes);
        assertThatThrownBy(() -> ReceiptJournal.read(dir, ""))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("damaged record but a later segment")
                .hasMessageContaining("restore the state directory from a backup");
    }

    @Test
    void aGapBetweenRecordsIsRefused() throws Exception {
        try (ReceiptJournal journal = ReceiptJournal.open(dir, "")) {
            journal.append(List.of(batch(0, 3)));
            journal.append(List.of(batch(4, 1)));
        }
        assertThatThrownBy(() -> ReceiptJournal.read(dir, ""))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("holds positions from 4 after the record ending at 3");
    }

    /**
     * Two threads append in turn, as the log's append lock has them; at a random moment the power is cut, and every
     * append that had returned must be read back after it.
     */
    @Test
    void everyAppendThatReturnedSurvivesAPowerCut() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int cycle = 0; cycle < 20; cycle++) {
            PowerCutFileSystem.install();
            Path state = Files.createDirectories(dir.resolve("cut-" + cycle));
            ReceiptJournal journal = ReceiptJournal.open(state, PowerCutFileSystem.PREFIX);
            AtomicLong next = new AtomicLong();
            List<Long> returned = Collections.synchronizedList(new ArrayList<>());
            Runnable appender = () -> {
                try {
                    while (true) {
                        ReceiptJournal.Batch batch;
                        // Positions in append order, as the log's append lock gives them.
                        synchronized (next) {
                            batch = batch(next.get(), 2);
                            next.addAndGet(2);
                            journal.append(List.of(batch));
                        }
                        returned.add(batch.end());
                    }
                } catch (IOException | RuntimeException e) {
                    // the power is cut
                }
            };
            Thread a = new Thread(appender);
            Thread b = new Thread(appender);
            a.start();
            b.start();
            while (returned.isEmpty()) {
                Thread.sleep(1); // on a loaded machine the appenders may take longer than the random pause to start
            }
            Thread.sleep(5 + random.nextInt(20));
            long acknowledged;
            synchronized (returned) {
                acknowledged = returned.stream().mapToLong(Long::longValue).max().orElse(0);
                PowerCutFileSystem.cut(random);
            }
            a.join();
            b.join();
            Path after = PowerCutFileSystem.restart(state, dir.resolve("after-" + cycle));
            List<ReceiptJournal.Batch> read = ReceiptJournal.read(after, "");
            long end = read.isEmpty() ? 0 : read.get(read.size() - 1).end();
            assertThat(end).as("cycle %d (seed %d): the journal's end against the last acknowledged", cycle, seed)
                    .isGreaterThanOrEqualTo(acknowledged);
            assertThat(acknowledged).as("cycle %d: something was appended before the cut", cycle).isPositive();
        }
    }

    @Test
    void theReplayAddsWhatTheLogLacksAndRefusesAJournalThatDoesNotContinueIt() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:replay;DB_CLOSE_DELAY=-1")) {
            c.setAutoCommit(false);
            LedgerLog.create(c);
            assertThat(LedgerLog.replay(c, List.of(batch(0, 3)))).isEqualTo(3);
            c.commit();

            // The log holds 0..2; the journal 1..9: 1 and 2 are written again as they are, 3..9 are added.
            assertThat(LedgerLog.replay(c, List.of(batch(1, 2), batch(3, 7)))).isEqualTo(7);
            c.commit();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT COUNT(*), MAX(position) FROM ledger_entry")) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(10);
                assertThat(r.getLong(2)).isEqualTo(9);
            }
            assertThat(LedgerLog.lock(c)).isEqualTo(10);
            c.rollback();

            assertThatThrownBy(() -> LedgerLog.replay(c, List.of(batch(12, 1))))
                    .hasMessageContaining("the journal begins at position 12 but the log holds 10 entries");
            c.rollback();
            assertThat(LedgerLog.lock(c)).isEqualTo(10);
            c.rollback();
        }
    }

    /**
     * The journal holds appends that the store's file lacks (here never written to the store at all: what a kill or a
     * power cut before the store's next forced write leaves), and the process dies. The next open holds every one of
     * them, and forces them into the store; without the journal the same files hold none.
     */
    @Test
    void anOpenAfterAnUncleanStopAppliesTheAppendsThatOnlyTheJournalHeld() throws Exception {
        PowerCutFileSystem.install();
        Path state = Files.createDirectories(dir.resolve("state"));
        try (H2Database created = H2Database.open(state); Connection c = created.dataSource().getConnection()) {
            LedgerLog.create(c);
            c.commit();
        }
        H2Database db = H2Database.open(state, 4, PowerCutFileSystem.PREFIX, true);
        for (int i = 0; i < 20; i++) {
            db.forcedWrites().append(List.of(batch(2 * i, 2)));
        }
        PowerCutFileSystem.kill();

        Path withoutJournal = PowerCutFileSystem.restart(state, dir.resolve("without-journal"));
        for (Path segment : ReceiptJournal.segments(withoutJournal)) {
            Files.delete(segment);
        }
        try (H2Database alone = H2Database.open(withoutJournal)) {
            assertThat(logSize(alone)).isZero();
        }

        Path after = PowerCutFileSystem.restart(state, dir.resolve("after"));
        try (H2Database reopened = H2Database.open(after)) {
            assertThat(reopened.recovered()).isNotNull();
            assertThat(logSize(reopened)).isEqualTo(40);
            try (Connection c = reopened.dataSource().getConnection();
                 Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT position, receipt_id, prev_position, line, document"
                         + " FROM ledger_entry ORDER BY position")) {
                for (ReceiptJournal.Entry want : batch(0, 40).entries()) {
                    assertThat(r.next()).isTrue();
                    assertThat(r.getLong(1)).isEqualTo(want.position());
                    assertThat(r.getString(2)).isEqualTo(want.receiptId());
                    assertThat(r.getObject(3) == null ? -1 : r.getLong(3)).isEqualTo(want.prev());
                    assertThat(r.getBytes(4)).isEqualTo(want.line());
                    assertThat(r.getBytes(5)).isEqualTo(want.document());
                }
                assertThat(r.next()).isFalse();
                c.commit();
            }
        }
        // That open forced a version holding them all and deleted the segments it applied; a clean close, the rest.
        assertThat(ReceiptJournal.segments(after)).isEmpty();
        try (H2Database again = H2Database.open(after)) {
            assertThat(again.recovered()).isNull();
            assertThat(logSize(again)).isEqualTo(40);
        }
    }

    private static long logSize(H2Database db) throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            long size = LedgerLog.lock(c);
            c.rollback();
            return size;
        }
    }
}
