package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorded forced chunk, on H2's store alone: after a force the marker names the newest chunk, and a recovery
 * opens exactly that version, whatever H2 wrote after it without a force (which a {@code kill -9} leaves on the disk
 * whole, {@link PowerCutFileSystem#kill}), while reading a few blocks of the file.
 */
class StoreRecoveryTest {
    private static final String FS = PowerCutFileSystem.PREFIX;

    @TempDir
    Path state;

    @BeforeEach
    void installDisk() {
        PowerCutFileSystem.install();
    }

    @Test
    void aForceRecordsTheNewestChunkInTheMarker() throws Exception {
        MVStore store = openWithZero();
        StoreRecovery.Marker marker = markOpen(store);
        StoreRecovery.ForcedChunk first = recorded();
        MVMap<Integer, String> map = store.openMap("data");
        map.put(1, "one");
        marker.force();

        StoreRecovery.ForcedChunk second = recorded();
        assertThat(second.sequence()).isEqualTo(first.sequence() + 1);
        assertThat(second.version()).isEqualTo(store.getCurrentVersion());
        assertThat(second.id()).isGreaterThan(first.id());

        marker.force(); // nothing new: no new record
        assertThat(recorded()).isEqualTo(second);

        marker.close();
        assertThat(Files.size(state.resolve(StoreRecovery.MARKER))).as("the record is gone at the close").isZero();
        store.close();
    }

    /**
     * With a write delay H2 writes a chunk on a thread of its own after the store has moved on: a force that came while
     * that write was pending found nothing unsaved, recorded the chunk before, and a checkpoint then deleted journal
     * records that version lacked (PowerLossTest found a gap of 21 receipts). The force waits for the pending write.
     * Here H2's writer has serialized the chunk and waits to write it (for its lock, which the test holds), the state
     * in which the store has nothing unsaved and names the chunk before as its newest.
     */
    @Test
    void aForceWaitsForTheChunkH2sWriterHasTakenButNotWritten() throws Exception {
        MVStore store = openWithZero();
        store.setAutoCommitDelay(60_000); // H2 writes on its own thread, and only the commits below
        StoreRecovery.Marker marker = markOpen(store);
        StoreRecovery.ForcedChunk before = recorded();
        ReentrantLock writing = (ReentrantLock) H2Internals.field(FileStore.class, "saveChunkLock")
                .get(store.getFileStore());
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            writing.lock();
            try {
                locked.countDown();
                go.await();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                writing.unlock();
            }
        });
        holder.start();
        long taken;
        try {
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            MVMap<Integer, String> map = store.openMap("data");
            map.put(1, "one");
            assertThat(store.tryCommit()).as("H2's writer takes the change").isPositive();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!writing.hasQueuedThreads()) {
                assertThat(System.nanoTime()).as("H2 serializes the chunk").isLessThan(deadline);
                Thread.sleep(1);
            }
            // The serialization changed H2's layout: taken too, into a chunk queued behind, as H2's background
            // writer would. Then a force's commit finds nothing unsaved.
            for (int i = 0; i < 3 && store.hasUnsavedChanges(); i++) {
                store.tryCommit();
            }
            assertThat(store.hasUnsavedChanges()).isFalse();
            taken = store.getCurrentVersion();
            go.countDown();
            marker.force();
        } finally {
            go.countDown();
            holder.join();
        }

        StoreRecovery.ForcedChunk after = recorded();
        assertThat(after.version()).as("recorded after %s", before).isGreaterThanOrEqualTo(taken);
        cutPower(store, marker);
        StoreRecovery.recover(state, FS);
        assertThat(reopenedData()).containsEntry(0, "zero").containsEntry(1, "one");
    }

    /**
     * H2 enters a chunk in the layout, the map of the chunks a version reads, only with a later chunk, once it has been
     * written. With a write delay H2 wrote chunks on a second thread of its own and serialized the next chunk while
     * the write of the one before was still queued there: that next chunk's version read pages of a chunk its layout
     * did not list, and the recovery that opened it failed ("Chunk 164 not found"; PowerLossTest, 9 failures in 65 runs
     * with a write delay of 20 ms). Here the store is opened as the ledger opens it, the delay set before the marker,
     * and the write of the first chunk is held while the next is taken and serialized wherever H2 still has that
     * thread (without {@link StoreRecovery#saveAsSerialized} it has): the version recorded after it reads whole.
     */
    @Test
    void theRecordedVersionListsTheChunkWrittenJustBeforeItWhenH2WritesBehind() throws Exception {
        MVStore store = openWithZero();
        store.setAutoCommitDelay(60_000); // H2 writes on its own threads, and only the commits below
        StoreRecovery.Marker marker = markOpen(store);
        ThreadPoolExecutor saver = executor(store, "bufferSaveExecutor");
        CountDownLatch held = new CountDownLatch(1);
        if (saver != null) {
            saver.submit(() -> {
                held.await();
                return null;
            });
        }
        try {
            writeTwoChunks(store);
        } finally {
            held.countDown();
        }
        marker.force();
        assertThat(recorded().version()).isEqualTo(store.getCurrentVersion());
        cutRecoverAndReadTwoChunks(store, marker);
    }

    /**
     * Chunks H2 wrote through its second thread before the ledger took it away (at the open) may be missing from the
     * newest chunk's layout when a force comes with nothing unsaved: the force then has H2 write a chunk that lists
     * them, and records that one.
     */
    @Test
    void aForceAfterChunksWrittenBehindTheNextRecordsAVersionThatListsThemAll() throws Exception {
        MVStore store = openWithZero();
        StoreRecovery.Marker marker = markOpen(store); // no write delay yet: nothing to take away
        store.setAutoCommitDelay(60_000); // H2's two threads, as before the open took the second away
        ThreadPoolExecutor serializer = executor(store, "serializationExecutor");
        ThreadPoolExecutor saver = executor(store, "bufferSaveExecutor");
        CountDownLatch held = new CountDownLatch(1);
        saver.submit(() -> {
            held.await();
            return null;
        });
        try {
            writeTwoChunks(store);
            for (int i = 0; i < 3 && store.hasUnsavedChanges(); i++) {
                store.tryCommit(); // the layout the serializations changed
                awaitIdle(serializer);
            }
            assertThat(store.hasUnsavedChanges()).as("what the force's commit sees").isFalse();
        } finally {
            held.countDown();
        }
        awaitIdle(saver);
        long written = store.getCurrentVersion();
        marker.force();
        assertThat(recorded().version()).isGreaterThanOrEqualTo(written);
        cutRecoverAndReadTwoChunks(store, marker);
    }

    @Test
    void aTornRecordLeavesTheOneBefore() throws Exception {
        MVStore store = open();
        StoreRecovery.Marker marker = markOpen(store);
        store.openMap("data").put(1, "one");
        marker.force();
        StoreRecovery.ForcedChunk before = recorded();
        store.openMap("data").put(2, "two");
        marker.force();
        StoreRecovery.ForcedChunk last = recorded();
        marker.close();
        store.close();

        // Write the last record again, torn: half of its line, in its own block.
        byte[] torn = last.slot();
        Arrays.fill(torn, 20, torn.length, (byte) 0);
        byte[] whole = before.slot();
        try (FileChannel file = FileChannel.open(state.resolve(StoreRecovery.MARKER), StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(whole), (before.sequence() % 2) * 4096);
            file.write(ByteBuffer.wrap(torn), (last.sequence() % 2) * 4096);
        }
        assertThat(recorded()).isEqualTo(before);
    }

    /**
     * After the recorded force, H2 goes on without forcing: it rewrites every entry (the chunks of the recorded version
     * die), and with no retention it could reuse their space at once. The version stays registered until a newer
     * record is on the disk, so none of its chunks is overwritten, and the recovery opens it whole.
     */
    @Test
    void theRecoveryOpensTheRecordedVersionWholeWhateverCameAfterIt() throws Exception {
        MVStore store = open();
        store.setRetentionTime(0);
        StoreRecovery.Marker marker = markOpen(store);
        MVMap<Integer, String> map = store.openMap("data");
        for (int i = 0; i < 2_000; i++) {
            map.put(i, "v1-" + i + "-" + "x".repeat(1000));
            if (i % 100 == 99) {
                store.commit();
                marker.force();
            }
        }
        marker.force();
        Map<Integer, String> forced = new TreeMap<>(map);
        long forcedVersion = store.getCurrentVersion();
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 2_000; i++) {
                map.put(i, "v" + (round + 2) + "-" + i + "-" + "y".repeat(900));
                if (i % 100 == 99) {
                    store.commit(); // written, never forced
                }
            }
        }
        store.commit();
        cutPower(store, marker);

        long readBefore = PowerCutFileSystem.bytesRead();
        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);
        long read = PowerCutFileSystem.bytesRead() - readBefore;

        assertThat(recovered.scannedWholeFile()).isFalse();
        assertThat(recovered.chunk().version()).isEqualTo(forcedVersion);
        assertThat(read).as("bytes the recovery read of a file of %d", Files.size(state.resolve(H2Database.FILE_NAME)))
                .isLessThan(Files.size(state.resolve(H2Database.FILE_NAME)) / 4);
        assertThat(reopenedData()).isEqualTo(forced);
    }

    /**
     * A forced write first writes what the store holds unwritten while calls go on, and only then holds them back
     * (StoreGate) for what changed meanwhile: with a call under way, the section waits, and the store has nothing
     * unwritten by then. (Before, all of it was written inside the section: megabytes after a housekeeping run.)
     */
    @Test
    void aForceWritesWhatTheStoreHoldsBeforeItHoldsCallsBack() throws Exception {
        MVStore store = open();
        AtomicReference<Boolean> unsavedWhenTheSectionWaited = new AtomicReference<>();
        StoreGate gate = new StoreGate(() -> {
            unsavedWhenTheSectionWaited.compareAndSet(null, store.hasUnsavedChanges());
            return null;
        });
        StoreRecovery.Marker marker = StoreRecovery.markOpen(state, FS, store, gate);
        MVMap<Integer, String> map = store.openMap("data");
        for (int i = 0; i < 2_000; i++) {
            map.put(i, "v1-" + i + "-" + "x".repeat(1000));
        }
        assertThat(store.hasUnsavedChanges()).isTrue();

        gate.enter();
        Thread forcing = new Thread(() -> {
            try {
                marker.force();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            forcing.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (unsavedWhenTheSectionWaited.get() == null) {
                assertThat(System.nanoTime()).as("the force never waited for the call under way").isLessThan(deadline);
                Thread.sleep(1);
            }
        } finally {
            gate.exit();
        }
        forcing.join(30_000);

        assertThat(unsavedWhenTheSectionWaited.get()).as("unwritten changes when the section began to wait").isFalse();
        assertThat(forcing.isAlive()).isFalse();
        long forcedVersion = store.getCurrentVersion();
        cutPower(store, marker);
        assertThat(StoreRecovery.recover(state, FS).chunk().version()).isEqualTo(forcedVersion);
        assertThat(reopenedData()).hasSize(2_000);
    }

    /**
     * Housekeeping after the recorded force moves the live pages out of the recorded version's chunks and frees the
     * chunks that died, forcing nothing ({@link StoreHousekeeping}); later commits, never forced, could take their space.
     * The recorded version stays registered until a newer record is on the disk, so the recovery opens it whole.
     */
    @Test
    void housekeepingAfterTheRecordedForceLeavesTheRecordedVersionWhole() throws Exception {
        MVStore store = open();
        store.setRetentionTime(0);
        StoreRecovery.Marker marker = markOpen(store);
        MVMap<Integer, String> map = store.openMap("data");
        for (int i = 0; i < 2_000; i++) {
            map.put(i, "v1-" + i + "-" + "x".repeat(1000));
            if (i % 100 == 99) {
                store.commit();
            }
        }
        // Every other entry written again, small: each chunk above is half dead, its other half worth moving.
        for (int i = 0; i < 2_000; i += 2) {
            map.put(i, "v2-" + i);
            if (i % 200 == 198) {
                store.commit();
            }
        }
        store.commit();
        marker.force();
        Map<Integer, String> forced = new TreeMap<>(map);
        long forcedVersion = store.getCurrentVersion();

        new StoreHousekeeping(store, 0).run();
        assertThat(store.hasUnsavedChanges()).as("housekeeping rewrote pages").isTrue();
        for (int i = 1; i < 2_000; i += 2) {
            map.put(i, "v3-" + i + "-" + "y".repeat(1000));
            if (i % 100 == 99) {
                store.commit(); // written, never forced
            }
        }
        store.commit();
        cutPower(store, marker);

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.chunk().version()).isEqualTo(forcedVersion);
        assertThat(reopenedData()).isEqualTo(forced);
    }

    /**
     * The recorded version lists chunks that were already dead in it, kept for H2's retention time; once that time has
     * passed H2 reuses their space without a force. H2's own open after a clean close checks the newest listed
     * chunks, dead ones too, and would settle on an older version; the recovery drops them and opens the recorded one.
     */
    @Test
    void chunksThatWereDeadInTheRecordedVersionMayBeOverwrittenAfterIt() throws Exception {
        MVStore store = open();
        store.setRetentionTime(300);
        StoreRecovery.Marker marker = markOpen(store);
        MVMap<Integer, String> map = store.openMap("data");
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 300; i++) {
                map.put(i, "v" + round + "-" + i + "-" + "x".repeat(1000));
                if (i % 30 == 29) {
                    store.commit();
                    marker.force();
                }
            }
        }
        Map<Integer, String> forced = new TreeMap<>(map);
        long forcedVersion = store.getCurrentVersion();
        Thread.sleep(400);
        for (int i = 0; i < 300; i++) {
            map.put(i, "after-" + i + "-" + "y".repeat(1000));
            if (i % 30 == 29) {
                store.commit(); // written into the space of the seasoned dead chunks, never forced
            }
        }
        cutPower(store, marker);

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.scannedWholeFile()).isFalse();
        assertThat(recovered.layoutRewritten()).as("the newest listed chunks were not all whole").isTrue();
        assertThat(recovered.chunk().version()).isEqualTo(forcedVersion);
        assertThat(reopenedData()).isEqualTo(forced);
    }

    @Test
    void withoutARecordTheRecoveryScansTheWholeFile() throws Exception {
        MVStore store = open();
        store.openMap("data").put(1, "one");
        store.commit();
        store.sync();
        cutPower(store, null);
        Files.createFile(state.resolve(StoreRecovery.MARKER));

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.scannedWholeFile()).isTrue();
        assertThat(reopenedData().get(1)).isEqualTo("one");
    }

    /**
     * H2 answers SHUTDOWN even when its store can no longer write (here the power is cut): the marker must stay, and
     * the next start recover, since nothing wrote a clean header.
     */
    @Test
    void aCloseThatCouldNotWriteItsHeaderLeavesTheMarker() throws Exception {
        H2Database db = H2Database.open(state, 2, FS, true);
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (v INT)");
            s.execute("INSERT INTO t VALUES (7)");
            c.commit();
            db.forcedWrites().force();
        }
        PowerCutFileSystem.cut(new Random(1));
        db.close();
        PowerCutFileSystem.install();

        assertThat(StoreRecovery.needed(state)).isTrue();
        try (H2Database reopened = H2Database.open(state, 2, FS, true);
             Connection c = reopened.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM t")) {
            assertThat(reopened.recovered()).isNotNull();
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(7);
        }
    }

    private StoreRecovery.Marker markOpen(MVStore store) throws StorageException {
        return StoreRecovery.markOpen(state, FS, store, new StoreGate(() -> null));
    }

    /** Two chunks that H2's writer takes and serializes, the second reading the first one's page of map "a". */
    private static void writeTwoChunks(MVStore store) throws Exception {
        ThreadPoolExecutor serializer = executor(store, "serializationExecutor");
        store.openMap("a").put(1, "a");
        assertThat(store.tryCommit()).as("H2 takes the change").isPositive();
        awaitIdle(serializer);
        store.openMap("b").put(1, "b");
        assertThat(store.tryCommit()).isPositive();
        awaitIdle(serializer);
    }

    /** After a force: a power cut, the recovery at the recorded version, and the two chunks read whole. */
    private void cutRecoverAndReadTwoChunks(MVStore store, StoreRecovery.Marker marker) throws Exception {
        cutPower(store, marker);

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.scannedWholeFile()).isFalse();
        MVStore reopened = open();
        assertThat(reopened.<Integer, String>openMap("data")).containsEntry(0, "zero");
        assertThat(reopened.<Integer, String>openMap("a")).containsEntry(1, "a");
        assertThat(reopened.<Integer, String>openMap("b")).containsEntry(1, "b");
        reopened.close();
    }

    /** One of the executors H2's file store writes chunks through with a write delay, or null. */
    private static ThreadPoolExecutor executor(MVStore store, String name) throws IllegalAccessException {
        return (ThreadPoolExecutor) H2Internals.field(FileStore.class, name).get(store.getFileStore());
    }

    /** Returns once every task submitted to {@code executor} before has run. */
    private static void awaitIdle(ThreadPoolExecutor executor) throws Exception {
        executor.submit(() -> { }).get(30, TimeUnit.SECONDS);
    }

    /** The newest record in the marker. */
    private StoreRecovery.ForcedChunk recorded() throws StorageException {
        return StoreRecovery.readRecord(FS + state.resolve(StoreRecovery.MARKER));
    }

    /** A new store whose map {@code data} holds 0 = zero, not yet written. */
    private MVStore openWithZero() {
        MVStore store = open();
        store.openMap("data").put(0, "zero");
        return store;
    }

    /**
     * H2's store as the ledger opens it (AUTO_COMPACT_FILL_RATE=0): with a write delay H2's own compaction would
     * otherwise wait, on its background thread, for a chunk write a test holds.
     */
    private MVStore open() {
        return new MVStore.Builder().fileName(FS + state.resolve(H2Database.FILE_NAME)).autoCommitDisabled()
                .autoCompactFillRate(0).open();
    }

    /** What the map "data" holds when the file is opened again (after a recovery). */
    private Map<Integer, String> reopenedData() {
        MVStore reopened = open();
        try {
            return new TreeMap<>(reopened.<Integer, String>openMap("data"));
        } finally {
            reopened.close();
        }
    }

    /** The power is cut: the process is gone ({@link #abandon}), and the disk holds what was forced. */
    private static void cutPower(MVStore store, StoreRecovery.Marker marker) {
        PowerCutFileSystem.kill();
        abandon(store, marker);
        PowerCutFileSystem.install();
    }

    /** The process is gone: its store and marker only release their files (every write fails after the kill). */
    private static void abandon(MVStore store, StoreRecovery.Marker marker) {
        try {
            store.closeImmediately();
        } catch (RuntimeException e) {
            // the files are closed anyway
        }
        if (marker != null) {
            try {
                marker.close();
            } catch (Exception e) {
                // the power is cut
            }
        }
    }
}
