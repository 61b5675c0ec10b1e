package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.locks.LockSupport;
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
     * With a write delay H2 writes a chunk on threads of its own after the store has moved on: a force that came while
     * that write was pending found nothing unsaved, recorded the chunk before, and a checkpoint then deleted journal
     * records that version lacked (PowerLossTest found a gap of 21 receipts). The force waits for the pending write.
     */
    @Test
    void aForceWaitsForTheChunkH2sWriterHasTakenButNotWritten() throws Exception {
        MVStore store = openWithZero();
        StoreRecovery.Marker marker = markOpen(store);
        StoreRecovery.ForcedChunk before = recorded();
        store.setAutoCommitDelay(5);
        ThreadPoolExecutor writer = (ThreadPoolExecutor) H2Internals.field(FileStore.class, "bufferSaveExecutor")
                .get(store.getFileStore());
        CountDownLatch held = new CountDownLatch(1);
        writer.submit(() -> {
            held.await();
            return null;
        });
        MVMap<Integer, String> map = store.openMap("data");
        map.put(1, "one");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.hasUnsavedChanges() || writer.getQueue().isEmpty()) {
            assertThat(System.nanoTime()).as("H2's writer takes the change").isLessThan(deadline);
            Thread.sleep(1);
        }
        long taken = store.getCurrentVersion();
        Thread release = new Thread(() -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            held.countDown();
        });
        release.start();
        try {
            marker.force();
        } finally {
            held.countDown();
            release.join();
        }

        StoreRecovery.ForcedChunk after = recorded();
        assertThat(after.version()).as("recorded after %s", before).isGreaterThanOrEqualTo(taken);
        PowerCutFileSystem.kill();
        abandon(store, marker);
        PowerCutFileSystem.install();
        StoreRecovery.recover(state, FS);
        MVStore reopened = open();
        assertThat(reopened.<Integer, String>openMap("data")).containsEntry(0, "zero").containsEntry(1, "one");
        reopened.close();
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
        PowerCutFileSystem.kill();
        abandon(store, marker);
        PowerCutFileSystem.install();

        long readBefore = PowerCutFileSystem.bytesRead();
        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);
        long read = PowerCutFileSystem.bytesRead() - readBefore;

        assertThat(recovered.scannedWholeFile()).isFalse();
        assertThat(recovered.chunk().version()).isEqualTo(forcedVersion);
        assertThat(read).as("bytes the recovery read of a file of %d", Files.size(state.resolve(H2Database.FILE_NAME)))
                .isLessThan(Files.size(state.resolve(H2Database.FILE_NAME)) / 4);
        MVStore reopened = open();
        assertThat(new TreeMap<>(reopened.<Integer, String>openMap("data"))).isEqualTo(forced);
        reopened.close();
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
        PowerCutFileSystem.kill();
        abandon(store, marker);
        PowerCutFileSystem.install();

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.scannedWholeFile()).isFalse();
        assertThat(recovered.layoutRewritten()).as("the newest listed chunks were not all whole").isTrue();
        assertThat(recovered.chunk().version()).isEqualTo(forcedVersion);
        MVStore reopened = open();
        assertThat(new TreeMap<>(reopened.<Integer, String>openMap("data"))).isEqualTo(forced);
        reopened.close();
    }

    @Test
    void withoutARecordTheRecoveryScansTheWholeFile() throws Exception {
        MVStore store = open();
        store.openMap("data").put(1, "one");
        store.commit();
        store.sync();
        PowerCutFileSystem.kill();
        abandon(store, null);
        PowerCutFileSystem.install();
        Files.createFile(state.resolve(StoreRecovery.MARKER));

        StoreRecovery.Recovered recovered = StoreRecovery.recover(state, FS);

        assertThat(recovered.scannedWholeFile()).isTrue();
        MVStore reopened = open();
        assertThat(reopened.<Integer, String>openMap("data").get(1)).isEqualTo("one");
        reopened.close();
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

    private MVStore open() {
        return new MVStore.Builder().fileName(FS + state.resolve(H2Database.FILE_NAME)).autoCommitDisabled().open();
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
