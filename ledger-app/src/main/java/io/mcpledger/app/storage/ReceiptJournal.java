package io.mcpledger.app.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.h2.store.fs.FilePath;

/**
 * The forced journal of the log's appends on H2: what makes an append durable, so that H2's own file is forced
 * only at checkpoints.
 *
 * <p>Why: forcing H2's file at every commit costs the file's {@code fsync} (the chunk H2 wrote for the commit, every
 * page it changed in every map, with its layout), then the marker of {@link StoreRecovery} written and forced: two
 * forced writes per commit. The journal appends the commit's rows, exactly as they were inserted, to a file of its
 * own and forces that file once: one {@code fdatasync} of a few kilobytes.
 *
 * <p>The rule that keeps every acknowledged receipt: an append is answered only after its record is forced here; a
 * segment of the journal is deleted only once a forced version of H2's store, recorded in the marker, holds every
 * record in it. At an open after an unclean stop, {@link StoreRecovery} opens the recorded version and {@link
 * H2Database} then applies every record of the remaining segments that the version does not hold ({@link
 * LedgerLog#replay}).
 *
 * <p>Records are appended in position order: the append of the log holds the append lock from its insert to the end of
 * its commit, and a record is written in the commit, after H2's. Each record carries its length and a CRC-32C; a record
 * that is torn or does not match its CRC ends its segment, and can only be the last one written, not yet forced (a
 * forced record follows every record written before it, in the same file, to the disk; a segment is forced before appends
 * move to the next). The segments are named by their number, {@code ledger.journal.<n>}; a checkpoint
 * ({@link #rotate}, then a forced write of H2, then {@link #dropOlder}) starts a new one. A new segment is written
 * with zeros and forced before any append goes to it ({@link #preallocation}: about what the segment before took, at
 * least {@link #PREALLOCATE_MIN}); zeros from a record's start to the end of its segment are that advance, not a torn
 * record.
 *
 * <p>The journal also holds the transparency log's signed checkpoints ({@link #appendCheckpoint}): the sequencer
 * publishes one once it is forced here, not once H2's file is forced, and an open after an unclean stop stores again
 * those the recovered version lacks. They are written outside the append lock, so they fall between batches anywhere.
 *
 * <p>Layout of a record, big-endian: body length (int), CRC-32C of the body (int); the body of a batch: the first
 * position (long), the number of entries (int), then per entry the receipt id (int length, UTF-8), the previous position
 * of its stream (long, -1 for none), the receipt's line (int length, bytes) and the policy document (int length, -1 for
 * none, bytes). The body of a checkpoint: {@value #CHECKPOINT_MARK} (long, where a batch has its first position), the
 * tree size (long), then the signed note (int length, UTF-8).
 */
public final class ReceiptJournal implements AutoCloseable {
    static final String PREFIX = "ledger.journal.";
    /** A record longer than this is not one the ledger wrote: 64 entries of at most a few hundred kilobytes each. */
    private static final int MAX_RECORD = 64 << 20;
    private static final int HEADER = 8;
    /**
     * The size a new segment is written to with zeros before appends go to it, at least, and the unit it is rounded
     * to: an append then writes over blocks the file already has, and its {@code fdatasync} has no file size to record
     * (appending at the end of a file cost about twice as much per forced write here: benchmarks.md, section 5). Small,
     * so that a ledger with a trickle of receipts writes little more than them; its checkpoints also wait for a
     * segment to hold half of this or to age ({@link H2Database#TRICKLE_BYTES}).
     */
    static final int PREALLOCATE_MIN = 64 << 10;
    /** The most a new segment is written to in advance; appends past it grow the file as before. */
    static final int PREALLOCATE_MAX = 32 << 20;
    private static final int ZEROS = PREALLOCATE_MIN;
    /** What a checkpoint's record has where a batch's has its first position, which is never negative. */
    static final long CHECKPOINT_MARK = -1;

    /** What a record holds: a batch of the log's entries or a signed checkpoint. */
    sealed interface Record permits Batch, SignedCheckpoint {
    }

    /** One entry of the log as it was inserted: what {@link LedgerLog#replay} inserts again. */
    public record Entry(long position, String receiptId, long prev, byte[] line, byte[] document) {
    }

    /** The entries one commit inserted, from {@code first} on. */
    public record Batch(long first, List<Entry> entries) implements Record {
        long end() {
            return first + entries.size();
        }
    }

    /** A checkpoint of the transparency log as the sequencer signed and committed it: its tree size and note. */
    public record SignedCheckpoint(long size, String note) implements Record {
    }

    /** What the segments hold: the batches in the log's order, and the checkpoints in the order they were written. */
    record Contents(List<Batch> batches, List<SignedCheckpoint> checkpoints) {
    }

    private final Path directory;
    private final String fileSystem;
    /** Guarded by {@code this}: the segment written to, its number, and the appends written so far. */
    private FileChannel segment;
    private long number;
    private long written;
    /** The bytes appended to the segment written to: a checkpoint writes the next one to about this in advance. */
    private long segmentBytes;
    /** Guarded by {@code forceLock}: the records that a completed force covers. */
    private long forced;
    private final Object forceLock = new Object();

    private ReceiptJournal(Path directory, String fileSystem) {
        this.directory = directory;
        this.fileSystem = fileSystem;
    }

    /** The segments in {@code directory}, oldest first. */
    static List<Path> segments(Path directory) throws IOException {
        List<Path> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(p -> number(p) >= 0).forEach(found::add);
        }
        found.sort((a, b) -> Long.compare(number(a), number(b)));
        return found;
    }

    private static long number(Path file) {
        String name = file.getFileName().toString();
        if (!name.startsWith(PREFIX)) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(PREFIX.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The batches of every segment in {@code directory}, in order. A torn or damaged record ends what is read; after
     * it only an empty segment may follow, else the journal is damaged beyond what a crash leaves and this throws.
     */
    static List<Batch> read(Path directory, String fileSystem) throws IOException {
        return readAll(directory, fileSystem).batches();
    }

    /** The batches and the checkpoints of every segment in {@code directory}, refused as {@link #read} refuses. */
    static Contents readAll(Path directory, String fileSystem) throws IOException {
        List<Batch> batches = new ArrayList<>();
        List<SignedCheckpoint> checkpoints = new ArrayList<>();
        Path tornIn = null;
        for (Path file : segments(directory)) {
            byte[] bytes;
            try (FileChannel channel = FilePath.get(fileSystem + file).open("r")) {
                bytes = FileChannels.read(channel, 0, Math.toIntExact(channel.size()));
            }
            if (tornIn != null && !zeroFrom(bytes, 0)) {
                throw new IOException("the journal " + tornIn + " ends in a damaged record but a later segment, " + file
                        + ", holds records: the journal is damaged, restore the state directory from a backup");
            }
            ByteBuffer in = ByteBuffer.wrap(bytes);
            while (in.remaining() > 0) {
                int at = in.position();
                Record record = next(in);
                if (record == null) {
                    // Zeros to the end are the part of the segment written in advance that no append reached.
                    if (!zeroFrom(bytes, at)) {
                        tornIn = file;
                    }
                    break;
                }
                if (record instanceof Batch batch) {
                    batches.add(batch);
                } else {
                    checkpoints.add((SignedCheckpoint) record);
                }
            }
        }
        // Written in position order (the append lock); sorted all the same, so that only a gap or an overlap is refused.
        batches.sort((a, b) -> Long.compare(a.first(), b.first()));
        for (int i = 1; i < batches.size(); i++) {
            if (batches.get(i).first() != batches.get(i - 1).end()) {
                throw new IOException("the journal in " + directory + " holds positions from " + batches.get(i).first()
                        + " after the record ending at " + batches.get(i - 1).end()
                        + ": the journal is damaged, restore the state directory from a backup");
            }
        }
        return new Contents(batches, checkpoints);
    }

    /** The next record of {@code in}, or null (and {@code in} left anywhere) when it is torn or damaged. */
    private static Record next(ByteBuffer in) {
        if (in.remaining() < HEADER) {
            return null;
        }
        int length = in.getInt();
        int crc = in.getInt();
        if (length <= 0 || length > MAX_RECORD || length > in.remaining()) {
            return null;
        }
        CRC32C check = new CRC32C();
        check.update(in.array(), in.position(), length);
        if ((int) check.getValue() != crc) {
            return null;
        }
        ByteBuffer body = in.slice(in.position(), length);
        in.position(in.position() + length);
        try {
            long first = body.getLong();
            if (first == CHECKPOINT_MARK) {
                long size = body.getLong();
                String note = new String(bytes(body, body.getInt()), StandardCharsets.UTF_8);
                return body.hasRemaining() || size < 0 ? null : new SignedCheckpoint(size, note);
            }
            int count = body.getInt();
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String id = new String(bytes(body, body.getInt()), StandardCharsets.UTF_8);
                long prev = body.getLong();
                byte[] line = bytes(body, body.getInt());
                int documentLength = body.getInt();
                byte[] document = documentLength < 0 ? null : bytes(body, documentLength);
                entries.add(new Entry(first + i, id, prev, line, document));
            }
            return body.hasRemaining() ? null : new Batch(first, entries);
        } catch (RuntimeException e) {
            // A CRC that matches a body it does not describe: not a record this journal wrote.
            return null;
        }
    }

    private static boolean zeroFrom(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] bytes(ByteBuffer body, int length) {
        byte[] bytes = new byte[length];
        body.get(bytes);
        return bytes;
    }

    static byte[] record(SignedCheckpoint checkpoint) {
        byte[] note = checkpoint.note().getBytes(StandardCharsets.UTF_8);
        int length = 8 + 8 + 4 + note.length;
        ByteBuffer out = ByteBuffer.allocate(HEADER + length);
        out.position(HEADER);
        out.putLong(CHECKPOINT_MARK).putLong(checkpoint.size()).putInt(note.length).put(note);
        return sealed(out, length);
    }

    /** Puts the body's length and CRC-32C before the body that {@code out} holds after its header. */
    private static byte[] sealed(ByteBuffer out, int length) {
        CRC32C crc = new CRC32C();
        crc.update(out.array(), HEADER, length);
        out.putInt(0, length);
        out.putInt(4, (int) crc.getValue());
        return out.array();
    }

    static byte[] record(Batch batch) {
        List<byte[]> ids = new ArrayList<>(batch.entries().size());
        int length = 12;
        for (Entry entry : batch.entries()) {
            byte[] id = entry.receiptId().getBytes(StandardCharsets.UTF_8);
            ids.add(id);
            length += 4 + id.length + 8 + 4 + entry.line().length + 4
                    + (entry.document() == null ? 0 : entry.document().length);
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER + length);
        out.position(HEADER);
        out.putLong(batch.first());
        out.putInt(batch.entries().size());
        for (int i = 0; i < batch.entries().size(); i++) {
            Entry entry = batch.entries().get(i);
            out.putInt(ids.get(i).length).put(ids.get(i));
            out.putLong(entry.prev());
            out.putInt(entry.line().length).put(entry.line());
            if (entry.document() == null) {
                out.putInt(-1);
            } else {
                out.putInt(entry.document().length).put(entry.document());
            }
        }
        return sealed(out, length);
    }

    /**
     * Starts the journal of {@code directory} in a new segment numbered after every segment there: the old ones stay
     * until {@link #dropBefore} finds them held by a forced version of the store.
     */
    static ReceiptJournal open(Path directory, String fileSystem) throws IOException {
        ReceiptJournal journal = new ReceiptJournal(directory, fileSystem);
        List<Path> existing = segments(directory);
        long next = existing.isEmpty() ? 1 : number(existing.get(existing.size() - 1)) + 1;
        FileChannel segment = journal.createSegment(next, PREALLOCATE_MIN);
        synchronized (journal) {
            journal.segment = segment;
            journal.number = next;
        }
        return journal;
    }

    /**
     * Creates segment {@code number}, writes it to {@code size} bytes of zeros, forces it and forces its name into the
     * directory: a record forced in it must not vanish with its file's name, and its appends then write over blocks
     * the file has. Appends go on meanwhile, to the segment before. The returned channel is at position 0.
     */
    private FileChannel createSegment(long number, int size) throws IOException {
        Path path = directory.resolve(PREFIX + number);
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            // Left by a rotation that failed after creating it (writing its zeros, forcing it or the directory):
            // nothing was appended to it.
            if (!zeroFrom(Files.readAllBytes(path), 0)) {
                throw e;
            }
        }
        FileChannel opened = FilePath.get(fileSystem + path).open("rw");
        try {
            ByteBuffer zeros = ByteBuffer.allocate(ZEROS);
            for (long at = 0; at < size; at += ZEROS) {
                FileChannels.write(opened, at, zeros.clear().limit((int) Math.min(ZEROS, size - at)));
            }
            opened.force(true);
            try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            opened.close();
            throw e;
        }
        return opened;
    }

    /** What a new segment is written to in advance after one that took {@code bytes} of appends. */
    static int preallocation(long bytes) {
        long wanted = bytes + bytes / 4;
        long rounded = (wanted + PREALLOCATE_MIN - 1) / PREALLOCATE_MIN * PREALLOCATE_MIN;
        return (int) Math.max(PREALLOCATE_MIN, Math.min(PREALLOCATE_MAX, rounded));
    }

    /**
     * Appends {@code batches} (one commit's) and returns once they are on stable storage: at once when a force that
     * started after the append has covered them, else after a force of its own (group commit across threads). Returns
     * true when this call forced.
     */
    boolean append(List<Batch> batches) throws IOException {
        List<byte[]> records = new ArrayList<>(batches.size());
        for (Batch batch : batches) {
            records.add(record(batch));
        }
        return write(records);
    }

    /**
     * Appends {@code checkpoint}, committed in the store, and returns once it is on stable storage, as {@link #append}
     * does; true when this call forced.
     */
    boolean appendCheckpoint(SignedCheckpoint checkpoint) throws IOException {
        return write(List.of(record(checkpoint)));
    }

    private boolean write(List<byte[]> records) throws IOException {
        long ticket;
        FileChannel file;
        synchronized (this) {
            for (byte[] bytes : records) {
                ByteBuffer record = ByteBuffer.wrap(bytes);
                segmentBytes += record.remaining();
                while (record.hasRemaining()) {
                    segment.write(record);
                }
            }
            ticket = ++written;
            file = segment;
        }
        synchronized (forceLock) {
            if (forced >= ticket) {
                return false;
            }
            long covers;
            synchronized (this) {
                covers = written;
            }
            // Not rotated since (a rotation forces the segment and covers every ticket): this is the segment written.
            file.force(false);
            forced = covers;
            return true;
        }
    }

    /** The bytes of records written to the segment since it was started: none, and a checkpoint has nothing to drop. */
    synchronized long segmentBytes() {
        return segmentBytes;
    }

    /**
     * Forces the segment written to and starts a new one. Every record in the
     * segments before it was written (after its commit in H2) before this returns, so a forced write of the store
     * that begins after this holds them all.
     */
    void rotate() throws IOException {
        long next;
        int size;
        synchronized (this) {
            next = number + 1;
            size = preallocation(segmentBytes);
        }
        // Only the checkpoint rotates, so the number stays free; appends wait only for the force and the switch.
        FileChannel created = createSegment(next, size);
        FileChannel old;
        synchronized (forceLock) {
            synchronized (this) {
                segment.force(false);
                forced = written;
                old = segment;
                segment = created;
                number = next;
                segmentBytes = 0;
            }
        }
        old.close();
    }

    /**
     * Deletes the segments before the one written to: call once a forced and recorded version of the store holds
     * every append in them (after {@link #rotate} and a forced write of the store).
     */
    void dropOlder() throws IOException {
        long current;
        synchronized (this) {
            current = number;
        }
        for (Path file : segments(directory)) {
            if (number(file) < current) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Deletes every segment: call once the store is closed cleanly, holding every append. */
    void dropAll() throws IOException {
        for (Path file : segments(directory)) {
            Files.deleteIfExists(file);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        segment.close();
    }
}
