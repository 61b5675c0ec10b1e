package io.mcpledger.app.storage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.zip.CRC32;
import org.h2.mvstore.Chunk;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.SFChunk;
import org.h2.mvstore.SingleFileStore;
import org.h2.store.fs.FilePath;

/**
 * Recovers a store that was not closed cleanly ({@code kill -9}, a crash, a power loss) to a version that holds every
 * commit whose force had returned, reading a few blocks of the file and its layout, whatever the file's size.
 *
 * <p>Why H2's own open is not enough: it finds the newest chunk by following its store header and the chain of
 * chunks it predicted after it, and by the chunk at the end of the file. When H2 writes a chunk into reused space where
 * it had not predicted one, it rewrites the header before it takes that chunk as its last one
 * (RandomAccessStore.writeChunk, then FileStore.storeBuffer sets lastChunk), so the header names the chunk before; if
 * the process then dies while writing a chunk at the end of the file, that torn chunk hides the newer ones and H2
 * opens an older version: commits that had been written, forced and answered are gone (seen here after a {@code kill
 * -9} under load on a 477 MB file). The scan of MVStore's recovery mode finds them, but reads the whole file (7.9 s for
 * 1.2 GB).
 *
 * <p>So the ledger records where the newest forced chunk is. The marker file {@code ledger.running} exists from the
 * open to the end of a clean close; after every forced write, before it is answered, {@link Marker#force} writes the
 * id, block, length and version of the newest chunk written before the force into the marker, and forces the marker.
 * That chunk is taken while no call changes the store ({@link StoreGate}): H2 takes a version map by map while other
 * threads go on writing, and a version taken otherwise may hold part of a transaction, which H2 would open as it is.
 * A recovery opens exactly that chunk's version ({@link RecordedVersionStore}), writes H2's layout without the chunks
 * that version no longer needs, and closes it, which leaves a clean store header; H2 then opens it as after a clean
 * close. That version holds every acknowledged commit but the log's appends since: a commit is answered only after a
 * force that started after it, and the chunk recorded by that force was written before the force. (The log's appends
 * are answered once their record in the {@link ReceiptJournal} is forced, and the open applies the records that
 * version lacks.) The chunks it needs are all on the disk: each was
 * written before the force, and none can have been overwritten since, because H2 overwrites a chunk only once it is
 * dead at a version older than the oldest registered version usage (FileStore.dropUnusedChunks, canOverwriteChunk), and
 * {@link Marker} keeps a version no newer than the recorded one registered until the next record is on the disk; and
 * the version's layout lists them all, since H2 writes each chunk before it serializes the next ({@link
 * #saveAsSerialized}).
 * Without a usable record (a marker from before this scheme, a crash before the first force or during the close, a
 * recorded chunk that is not whole) the recovery falls back to the scan of the whole file.
 *
 * <p>Depends on H2's internals, pinned with H2's version (2.5.252): the field {@code FileStore.lastChunk}; the
 * protected methods of FileStore that RandomAccessStore.readStoreHeader uses, which {@link RecordedVersionStore}
 * overrides; the store header format; and that a registered version usage ({@link MVStore#registerVersionUsage})
 * keeps the chunks of that version from being overwritten.
 */
final class StoreRecovery {
    /** Present while a process has the database open, and after one that died with it open. */
    static final String MARKER = "ledger.running";
    /** H2's block size (FileStore.BLOCK_SIZE), and the size of one record slot in the marker. */
    private static final int BLOCK = 4096;
    private static final Field LAST_CHUNK = H2Internals.field(FileStore.class, "lastChunk");
    /** H2's thread that serializes the chunks its background writer takes (with a write delay). */
    private static final Field SERIALIZER = H2Internals.field(FileStore.class, "serializationExecutor");
    /** H2's thread that writes the chunks serialized (with a write delay), until {@link #saveAsSerialized}. */
    private static final Field SAVER = H2Internals.field(FileStore.class, "bufferSaveExecutor");
    /** The two, in the order a chunk goes through them. */
    private static final List<Field> PIPELINE = List.of(SERIALIZER, SAVER);
    /** The chunks H2 has written and not yet listed in a layout (FileStore.recentlySaved). */
    private static final Field RECENTLY_SAVED = H2Internals.field(FileStore.class, "recentlySaved");
    private static final Method MARK_META_CHANGED = H2Internals.method(MVStore.class, "markMetaChanged");

    private StoreRecovery() {
    }

    /** A chunk of the store, as the marker records it once a force has put it on the disk. */
    record ForcedChunk(long sequence, int id, long block, int len, long version) {
        private static final String PREFIX = "forced";

        boolean sameChunk(ForcedChunk other) {
            return other != null && id == other.id && block == other.block && version == other.version;
        }

        /** One line, with a CRC-32, in a block of its own. */
        byte[] slot() {
            String body = PREFIX + " sequence=" + sequence + " chunk=" + id + " block=" + block + " len=" + len
                    + " version=" + version;
            byte[] bytes = Arrays.copyOf((body + " crc=" + crc(body) + "\n").getBytes(StandardCharsets.US_ASCII), BLOCK);
            return bytes;
        }

        /** The record in {@code slot}, or null if it holds none or a torn one. */
        static ForcedChunk parse(byte[] slot) {
            int end = 0;
            while (end < slot.length && slot[end] != '\n') {
                end++;
            }
            if (end == slot.length) {
                return null;
            }
            String line = new String(slot, 0, end, StandardCharsets.US_ASCII);
            int crcAt = line.lastIndexOf(" crc=");
            if (!line.startsWith(PREFIX + " ") || crcAt < 0 || !line.substring(crcAt + 5).equals(crc(line.substring(0, crcAt)))) {
                return null;
            }
            Map<String, String> fields = new HashMap<>();
            for (String field : line.substring(PREFIX.length() + 1, crcAt).split(" ")) {
                int eq = field.indexOf('=');
                if (eq > 0) {
                    fields.put(field.substring(0, eq), field.substring(eq + 1));
                }
            }
            try {
                return new ForcedChunk(Long.parseLong(fields.get("sequence")), Integer.parseInt(fields.get("chunk")),
                        Long.parseLong(fields.get("block")), Integer.parseInt(fields.get("len")),
                        Long.parseLong(fields.get("version")));
            } catch (RuntimeException e) {
                return null;
            }
        }

        private static String crc(String body) {
            CRC32 crc = new CRC32();
            crc.update(body.getBytes(StandardCharsets.US_ASCII));
            return Long.toHexString(crc.getValue());
        }
    }

    /**
     * What a recovery did: made H2 open the recorded chunk's version, with a new store header or (layoutRewritten)
     * a rewritten layout, or (chunk null) scanned the whole file.
     */
    record Recovered(ForcedChunk chunk, boolean layoutRewritten) {
        boolean scannedWholeFile() {
            return chunk == null;
        }
    }

    /** True when the database file exists and the last process to open it did not close it cleanly. */
    static boolean needed(Path stateDirectory) {
        return Files.exists(stateDirectory.resolve(MARKER)) && Files.exists(stateDirectory.resolve(H2Database.FILE_NAME));
    }

    /**
     * Makes the store in {@code stateDirectory}, opened through the H2 file system {@code fileSystem} (a registered
     * {@code FilePath} scheme followed by ':', or "" for the plain file), open at a version that holds every
     * acknowledged commit: the one the marker records, when its chunk is in the file, else the newest complete one
     * that MVStore's scan of the whole file finds. Leaves the marker without a record: it has served, and the next
     * open's first force records anew.
     */
    static Recovered recover(Path stateDirectory, String fileSystem) throws StorageException {
        String storeFile = fileSystem + stateDirectory.resolve(H2Database.FILE_NAME);
        String marker = fileSystem + stateDirectory.resolve(MARKER);
        requireUnlocked(stateDirectory, storeFile);
        ForcedChunk recorded = readRecord(marker);
        Recovered recovered;
        try {
            recovered = recorded == null ? null : openRecordedVersion(storeFile, recorded);
        } catch (IOException e) {
            throw new StorageException("cannot write the store header of " + stateDirectory.resolve(H2Database.FILE_NAME)
                    + ": " + e.getMessage(), e);
        } catch (RuntimeException | AssertionError e) {
            throw unrecoverable(stateDirectory, e);
        }
        if (recovered == null) {
            scanWholeFile(stateDirectory, storeFile);
            recovered = new Recovered(null, false);
        }
        try (FileChannel file = FilePath.get(marker).open("rw")) {
            file.truncate(0);
            file.force(true);
        } catch (IOException e) {
            throw new StorageException("cannot write " + stateDirectory.resolve(MARKER) + ": " + e.getMessage(), e);
        }
        return recovered;
    }

    /**
     * Opens the store with the full scan, which settles on the newest complete version, and closes it, which writes a
     * header naming that version.
     */
    private static void scanWholeFile(Path stateDirectory, String storeFile) throws StorageException {
        try {
            MVStore store = new MVStore.Builder().fileName(storeFile).recoveryMode().autoCommitDisabled().open();
            store.close();
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                throw StateInUseException.at(stateDirectory, e);
            }
            throw unrecoverable(stateDirectory, e);
        } catch (RuntimeException | AssertionError e) {
            throw unrecoverable(stateDirectory, e);
        }
    }

    /**
     * A file H2 cannot open at any complete version. H2 reads a file it finds inconsistent with assertions of its own
     * too (AssertionError from a scan of a torn file), which say the same.
     */
    private static StorageException unrecoverable(Path stateDirectory, Throwable e) {
        String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new StorageException("the ledger database " + stateDirectory.resolve(H2Database.FILE_NAME)
                + " was not closed cleanly and cannot be recovered: " + what + "; restore it from a backup", e);
    }

    /**
     * Makes H2 open the version of the chunk {@code forced}. When the newest chunks that version lists are whole, H2's
     * own open after a clean close opens it, and a clean store header naming the chunk is all it takes; that open
     * checks those chunks (RandomAccessStore.readStoreHeader), and this checks them first ({@link
     * RecordedVersionStore#newestListedWhole}, reading a few blocks). Otherwise (a chunk that was already dead in that
     * version has been overwritten since) it opens that version itself, drops the dead chunks from its layout and
     * closes it, which writes the layout and a clean header ({@link RecordedVersionStore}, reading the whole layout).
     * Returns null, having written nothing, when the chunk or the newest live chunks its version needs are not whole,
     * or the store header cannot be read.
     */
    private static Recovered openRecordedVersion(String storeFile, ForcedChunk forced) throws IOException {
        RecordedVersionStore probe = new RecordedVersionStore(forced, true);
        try {
            probe.open(storeFile, true, null);
            new MVStore.Builder().adoptFileStore(probe).readOnly().open().close();
        } catch (MVStoreException e) {
            return null;
        } finally {
            closeQuietly(probe);
        }
        if (probe.newestListedWhole) {
            try (FileChannel file = FilePath.get(storeFile).open("rw")) {
                HashMap<String, Object> header = probe.header;
                header.put("clean", 1);
                FileChannels.write(file, 0, storeHeader(header));
                file.force(true);
            }
            return new Recovered(forced, false);
        }
        RecordedVersionStore rewrite = new RecordedVersionStore(forced, false);
        try {
            rewrite.open(storeFile, false, null);
            MVStore store = new MVStore.Builder().adoptFileStore(rewrite).autoCommitDisabled().open();
            store.commit();
            store.close();
            return new Recovered(forced, true);
        } catch (MVStoreException e) {
            return null;
        } finally {
            closeQuietly(rewrite);
        }
    }

    private static void closeQuietly(FileStore<?> fileStore) {
        try {
            fileStore.close();
        } catch (RuntimeException e) {
            // Closed with its store already.
        }
    }

    /**
     * H2's file store, opened at the version of a recorded chunk: what RandomAccessStore.readStoreHeader does after a
     * clean close, but the last chunk comes from the record (checked as H2 checks the one its header names).
     *
     * <p>To {@code probe} (read only), it finds the chunks that H2's open after a clean close would check, the newest
     * (at most {@value #CHECKED}) that the version lists, by looking their ids up in the layout one by one from the
     * recorded chunk down, and checks them as H2 would. Otherwise it opens the version for writing: it reads the whole
     * layout, checks the newest {@value #CHECKED} live chunks, and drops every dead chunk from the layout, as H2 drops
     * an orphaned chunk. H2's own check takes dead chunks too, and a chunk that was already dead in the recorded version
     * may have been overwritten since (H2 reuses its space once it is seasoned): H2 would then silently settle on an
     * older version.
     */
    private static final class RecordedVersionStore extends SingleFileStore {
        /** RandomAccessStore.readStoreHeader checks the newest 19 chunks its layout lists; this checks one more. */
        private static final int CHECKED = 20;
        /** Ids looked up below the recorded one before the probe gives up (and the layout is read whole). */
        private static final int PROBES = 100_000;
        private static final Field LAYOUT = H2Internals.field(FileStore.class, "layout");
        private final ForcedChunk forced;
        private final boolean probe;
        /** The store header, naming the recorded chunk. */
        HashMap<String, Object> header;
        /** Whether the probe found the newest chunks the recorded version lists whole (H2's open would succeed). */
        boolean newestListedWhole;

        RecordedVersionStore(ForcedChunk forced, boolean probe) {
            super(new HashMap<>());
            this.forced = forced;
            this.probe = probe;
        }

        @Override
        protected void readStoreHeader(boolean recoveryMode) {
            ByteBuffer blocks = readFully((SFChunk) null, 0, 2 * BLOCK);
            byte[] bytes = new byte[2 * BLOCK];
            blocks.get(bytes);
            header = newestStoreHeader(bytes);
            if (header == null) {
                throw corrupt("the store header is corrupt");
            }
            header.put("block", forced.block());
            header.put("chunk", forced.id());
            header.put("version", forced.version());
            storeHeader.putAll(header);
            processCommonHeaderAttributes();
            SFChunk last = readChunkHeaderAndFooter(forced.block(), forced.id());
            if (last == null || last.version != forced.version()) {
                throw corrupt("the recorded chunk " + forced + " is not whole in the file");
            }
            setLastChunk(last);
            if (probe) {
                newestListedWhole = newestListedWhole();
                clear();
                return;
            }
            List<SFChunk> live = new ArrayList<>();
            List<SFChunk> dead = new ArrayList<>();
            for (SFChunk chunk : getChunksFromLayoutMap()) {
                (isLive(chunk) ? live : dead).add(chunk);
            }
            live.sort(Comparator.comparingLong((SFChunk c) -> c.version).reversed());
            for (SFChunk chunk : live.subList(0, Math.min(CHECKED, live.size()))) {
                if (readChunkHeaderAndFooter(chunk.block, chunk.id) == null) {
                    throw corrupt("chunk " + chunk.id + ", which the recorded version needs, is not whole in the file");
                }
            }
            clear();
            for (SFChunk chunk : getChunks().values()) {
                if (isLive(chunk) && chunk.block != 0) {
                    markUsed(chunk.block * BLOCK, chunk.len * BLOCK);
                }
            }
            for (SFChunk chunk : dead) {
                dropOrphanedChunk(chunk);
            }
        }

        /**
         * Whether the newest {@value #CHECKED} chunks the layout lists are whole. Chunk ids grow with versions (modulo
         * Chunk.MAX_ID), so they are the listed ids just below the recorded one, unless an old chunk kept its id across
         * a wrap; versions that do not fall along the way, or fewer than {@value #CHECKED} found, answer false.
         */
        @SuppressWarnings("unchecked")
        private boolean newestListedWhole() {
            MVMap<String, String> layout;
            try {
                layout = (MVMap<String, String>) LAYOUT.get(this);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            int found = 0;
            long previousVersion = forced.version();
            for (int step = 1; step <= PROBES && found < CHECKED; step++) {
                String metadata = layout.get("chunk." + Integer.toHexString((forced.id() - step) & Chunk.MAX_ID));
                if (metadata == null) {
                    continue;
                }
                SFChunk chunk = createChunk(metadata);
                if (chunk.version >= previousVersion || readChunkHeaderAndFooter(chunk.block, chunk.id) == null) {
                    return false;
                }
                previousVersion = chunk.version;
                found++;
            }
            return found == CHECKED;
        }

        /** Chunk.isLive is package-private; a chunk has live bytes exactly when it has live pages. */
        private static boolean isLive(SFChunk chunk) {
            return chunk.maxLenLive > 0;
        }

        private static MVStoreException corrupt(String message) {
            return DataUtils.newMVStoreException(DataUtils.ERROR_FILE_CORRUPT, "{0}", message);
        }
    }

    /** Of the two copies of H2's store header, the valid one with the higher version, or null if neither is. */
    private static HashMap<String, Object> newestStoreHeader(byte[] twoBlocks) {
        HashMap<String, Object> newest = null;
        for (int at = 0; at < twoBlocks.length; at += BLOCK) {
            HashMap<String, String> copy = checksummedMap(Arrays.copyOfRange(twoBlocks, at, at + BLOCK));
            if (copy != null && (newest == null
                    || DataUtils.readHexLong(copy, "version", 0) > DataUtils.readHexLong(newest, "version", 0))) {
                newest = new HashMap<>(copy);
            }
        }
        return newest;
    }

    /** A map H2 wrote with a Fletcher-32 checksum after it (DataUtils.parseChecksummedMap), or null. */
    private static HashMap<String, String> checksummedMap(byte[] block) {
        int end = 0;
        while (end < block.length && block[end] != '\n') {
            end++;
        }
        String text = new String(block, 0, end, StandardCharsets.ISO_8859_1);
        int at = text.lastIndexOf(",fletcher:");
        if (at < 0) {
            return null;
        }
        try {
            int expected = (int) Long.parseLong(text.substring(at + ",fletcher:".length()), 16);
            if (expected != DataUtils.getFletcher32(block, 0, at)) {
                return null;
            }
            return DataUtils.parseMap(text.substring(0, at));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** H2's store header, both copies (RandomAccessStore.writeStoreHeader). */
    private static ByteBuffer storeHeader(HashMap<String, Object> header) {
        StringBuilder buff = new StringBuilder(112);
        DataUtils.appendMap(buff, header);
        byte[] bytes = buff.toString().getBytes(StandardCharsets.ISO_8859_1);
        DataUtils.appendMap(buff, "fletcher", DataUtils.getFletcher32(bytes, 0, bytes.length));
        buff.append('\n');
        bytes = buff.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer both = ByteBuffer.allocate(2 * BLOCK);
        both.put(bytes);
        both.position(BLOCK);
        both.put(bytes);
        return both.rewind();
    }

    /**
     * The marker is also there while another process runs on this state; that one holds the file's lock, and this one
     * must say so rather than start a recovery.
     */
    private static void requireUnlocked(Path stateDirectory, String storeFile) throws StorageException {
        try (FileChannel file = FilePath.get(storeFile).open("rw"); FileLock lock = file.tryLock()) {
            if (lock == null) {
                throw StateInUseException.at(stateDirectory, null);
            }
        } catch (OverlappingFileLockException e) {
            throw StateInUseException.at(stateDirectory, e);
        } catch (IOException e) {
            throw new StorageException("cannot open " + stateDirectory.resolve(H2Database.FILE_NAME) + ": "
                    + e.getMessage(), e);
        }
    }

    /** The newest valid record in the marker (an H2 file name), or null. */
    static ForcedChunk readRecord(String marker) throws StorageException {
        try (FileChannel file = FilePath.get(marker).open("r")) {
            ForcedChunk newest = null;
            for (long at = 0; at + BLOCK <= file.size() && at < 2 * BLOCK; at += BLOCK) {
                ForcedChunk record = ForcedChunk.parse(FileChannels.read(file, at, BLOCK));
                if (record != null && (newest == null || record.sequence() > newest.sequence())) {
                    newest = record;
                }
            }
            return newest;
        } catch (IOException e) {
            throw new StorageException("cannot read " + marker + ": " + e.getMessage(), e);
        }
    }

    /**
     * Records, on stable storage, that a process has the database open. With a {@code store}, forces it once and
     * records its newest chunk; the returned marker then records the newest chunk after every force, taken inside
     * {@code gate}'s exclusive section. The marker is written through the same H2 file system as the store, {@code
     * fileSystem}.
     */
    static Marker markOpen(Path stateDirectory, String fileSystem, MVStore store, StoreGate gate)
            throws StorageException {
        Path path = stateDirectory.resolve(MARKER);
        FileChannel file = null;
        try {
            try {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException e) {
                // Left by a process that died: still true, and the recovery above has run.
            }
            file = FilePath.get(fileSystem + path).open("rw");
            file.force(true);
            forceDirectory(stateDirectory);
            Marker marker = new Marker(file, store, gate);
            if (store != null) {
                saveAsSerialized(store);
                marker.force();
            }
            return marker;
        } catch (IOException | MVStoreException e) {
            if (file != null) {
                try {
                    file.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new StorageException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether the store at {@code storeFile}, closed, has a store header that says it was closed cleanly, read after a
     * force of the file (so what was read is on the disk).
     */
    static boolean closedCleanly(String storeFile) {
        try (FileChannel file = FilePath.get(storeFile).open("rw")) {
            file.force(true);
            HashMap<String, Object> header = newestStoreHeader(FileChannels.read(file, 0, 2 * BLOCK));
            return header != null && "1".equals(header.get("clean"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Records that the database was closed cleanly: the next open needs no recovery. */
    static void markClosed(Path stateDirectory) throws IOException {
        Files.deleteIfExists(stateDirectory.resolve(MARKER));
        forceDirectory(stateDirectory);
    }

    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    /**
     * The open marker file of a database. Its records alternate between two blocks, each with a sequence number and a
     * CRC: writing one never spoils the other, so a power cut during a write leaves the record before.
     */
    static final class Marker {
        private final FileChannel file;
        private final MVStore store;
        private final StoreGate gate;
        private ForcedChunk recorded;
        private long sequence;
        /** The version usage that keeps the recorded chunk's version whole on the disk; released once a newer one is. */
        private MVStore.TxCounter pin;
        private boolean closed;

        private Marker(FileChannel file, MVStore store, StoreGate gate) {
            this.file = file;
            this.store = store;
            this.gate = gate;
        }

        /**
         * A forced write that a recovery can find: writes what the store holds unwritten (most of it before calls are
         * held back, the rest after), waits for the chunks H2's background writer has taken but not yet written
         * ({@link #awaitPendingSaves}), and takes the newest chunk (first having H2 write one more when the newest's
         * layout lacks a chunk before it, {@link #newestListsEveryChunkBefore}), all while no call changes the store
         * ({@link StoreGate}), so that the recorded version holds every commit before it and no transaction in part;
         * then forces the file, records that chunk and forces the marker. The version current before the write stays
         * registered (so H2 overwrites none of the chunks the recorded version needs) until a newer record is on the
         * disk.
         */
        synchronized void force() throws IOException {
            MVStore.TxCounter next = store.registerVersionUsage();
            // What the store holds unwritten is written first, while calls go on (the pages housekeeping moved can
            // come to megabytes), so that the section below, which holds every call back, writes only what changed
            // meanwhile: at 1,000 admissions/s each of the sequencer's forces had held the calls back 25 to 68 ms
            // for seconds on end while housekeeping was behind (docs/benchmarks.md, section 8).
            store.commit();
            awaitPendingSaves(store);
            ForcedChunk newest = gate.exclusive(() -> {
                // A store running when this began (housekeeping's) may have taken the maps before the last calls
                // changed them; what it missed is unsaved, and written here.
                for (int i = 0; i < 3 && (i == 0 || store.hasUnsavedChanges()); i++) {
                    store.commit();
                }
                awaitPendingSaves(store);
                if (!newestListsEveryChunkBefore(store)) {
                    // Written before saveAsSerialized (at the open): a new chunk lists them all.
                    markMetaChanged(store);
                    store.commit();
                    awaitPendingSaves(store);
                }
                return newestChunk(store, sequence + 1);
            });
            store.sync();
            if (closed || newest == null || newest.sameChunk(recorded)) {
                store.deregisterVersionUsage(next);
                return;
            }
            FileChannels.write(file, (newest.sequence() % 2) * BLOCK, ByteBuffer.wrap(newest.slot()));
            file.force(false);
            recorded = newest;
            sequence = newest.sequence();
            store.deregisterVersionUsage(pin);
            pin = next;
        }

        /**
         * Before H2's close, which may move chunks (its compaction at close) and then writes a clean header: the record
         * is removed, so a crash during the close recovers by the scan, and the registered version is released.
         */
        synchronized void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                file.truncate(0);
                file.force(true);
            } finally {
                if (store != null && !store.isClosed()) {
                    store.deregisterVersionUsage(pin);
                }
                pin = null;
                file.close();
            }
        }

        /**
         * After the store failed to write: closes the marker as it is, keeping the record of the last forced write
         * for the recovery at the next start.
         */
        synchronized void abandon() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                file.close();
            } catch (IOException e) {
                // Its record was forced when written; nothing in the channel is pending.
            }
        }
    }

    /**
     * Makes H2's background writer write each chunk before it serializes the next, as H2 does without a write delay.
     * H2 enters a chunk in the layout (the map of chunks a version reads) only with a later chunk, once it has been
     * written (FileStore.saveRecentChunksInLayout); with a write delay it writes a chunk on a second thread of its own
     * (bufferSaveExecutor), and serializes the next while that write is still queued, so the next chunk's layout lacks
     * it. Opened at that next chunk's version, as a recovery does, H2 then cannot find the chunk holding pages the
     * version reads: "Chunk 164 not found" reading chunk 165's layout, in the files a failing PowerLossTest kept (9
     * failures in 65 runs with a write delay of 20 ms, most of them a start that then lacked a table). Without that
     * thread the serializing thread writes the chunk itself (FileStore.submitOrRun runs it there). Runs once, at the
     * open, before the ledger's first forced write (chunks H2 wrote before it are left to {@link
     * #newestListsEveryChunkBefore}); the executor is taken down between H2's own chunk writes ({@link
     * FileStore#executeFileStoreOperation}), and the serializing thread reads the field under the lock that operation
     * holds.
     */
    static void saveAsSerialized(MVStore store) {
        FileStore<?> fileStore = store.getFileStore();
        fileStore.executeFileStoreOperation(() -> {
            try {
                ThreadPoolExecutor saver = (ThreadPoolExecutor) SAVER.get(fileStore);
                if (saver != null) {
                    SAVER.set(fileStore, null);
                    saver.shutdown();
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Waits until the chunks H2's background writer has taken are written. With a write delay H2 serializes and writes
     * a chunk on a thread of its own (FileStore's serializationExecutor, one thread, first in first out; H2's second,
     * bufferSaveExecutor, is gone after {@link #saveAsSerialized}, and is awaited too while there) after the store has
     * moved to the next version: {@code commit()} then finds nothing unsaved and returns while the chunk holding the
     * last commits is still on its way, and {@code lastChunk} names the chunk before it. An empty task through each
     * executor in turn returns once every task before it has run. Without a write delay there are no executors and
     * every chunk is written by the commit that took it.
     */
    private static void awaitPendingSaves(MVStore store) throws IOException {
        FileStore<?> fileStore = store.getFileStore();
        for (Field executor : PIPELINE) {
            ThreadPoolExecutor pipeline;
            try {
                pipeline = (ThreadPoolExecutor) executor.get(fileStore);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            if (pipeline == null) {
                continue;
            }
            try {
                pipeline.submit(() -> { }).get();
            } catch (RejectedExecutionException e) {
                throw new IOException("the store is closing: its writer stopped before the chunks it had taken were"
                        + " written", e);
            } catch (ExecutionException e) {
                throw new IOException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while H2 wrote the chunks it had taken");
            }
        }
    }

    /**
     * Whether the layout of the newest chunk H2 has written lists every chunk written before it. H2 keeps the chunks it
     * has written and not yet listed in a queue, which the serialization of the next chunk empties into its layout
     * (FileStore.saveRecentChunksInLayout): a chunk older than the newest still queued was written after the newest
     * was serialized, and the newest's version lacks it. After {@link #saveAsSerialized} that cannot happen; the
     * chunks H2 wrote at the open, before it, can.
     */
    private static boolean newestListsEveryChunkBefore(MVStore store) {
        try {
            Chunk<?> newest = (Chunk<?>) LAST_CHUNK.get(store.getFileStore());
            if (newest == null) {
                return true;
            }
            for (Object chunk : (Iterable<?>) RECENTLY_SAVED.get(store.getFileStore())) {
                if (((Chunk<?>) chunk).version < newest.version) {
                    return false;
                }
            }
            return true;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes the store's next commit write a chunk though no map changed (internal API). */
    private static void markMetaChanged(MVStore store) {
        try {
            MARK_META_CHANGED.invoke(store);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The newest chunk H2 has written: {@code FileStore.lastChunk}, set once the chunk is written (internal API). */
    private static ForcedChunk newestChunk(MVStore store, long sequence) {
        try {
            Chunk<?> chunk = (Chunk<?>) LAST_CHUNK.get(store.getFileStore());
            return chunk == null ? null : new ForcedChunk(sequence, chunk.id, chunk.block, chunk.len, chunk.version);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
