package io.mcpledger.app.log;

import io.mcpledger.app.storage.ForcedWrites;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Receipt;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import javax.sql.DataSource;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;

/**
 * The transparency log's sequencer: it integrates committed receipts into the RFC 9162 tree in the event store's
 * global-index order, which is commit order (see {@code GroupCommitCommandBus}), and publishes a signed C2SP
 * checkpoint for each new size. Entry {@code i} is the {@code i}-th stored event, so the order is fixed by the event
 * store itself: a crash between append and integration, or a rebuild of the tree tables, gives every receipt the same
 * index again.
 *
 * <p>Each integration is one transaction that locks the {@code log_head} row, checks that the tree it holds is the
 * stored one, and commits the new tiles, the head and the checkpoint together. Memory is changed only after that
 * commit, so a failed integration leaves nothing behind and the next run repeats it.
 *
 * <p>Nothing is signed over what a power loss could take back: the entries read are forced to disk before the
 * checkpoint is signed, and the checkpoint is forced before it is published. So no crash can make the log sign two
 * different trees of one size.
 */
public final class LogSequencer {
    /** Entries per checkpoint when catching up, so one transaction stays a few megabytes. */
    static final int MAX_PER_CHECKPOINT = 10_000;

    /** A published checkpoint: the tree size, its root and the signed note. */
    public record Published(long size, byte[] root, String note) {
    }

    /** Told of each entry after the integration that holds it has committed. */
    @FunctionalInterface
    public interface Integrated {
        void entry(long index, Receipt receipt);
    }

    private final DataSource database;
    private final ForcedWrites forcedWrites;
    private final Serializer serializer;
    private final SigningKey key;
    private final String origin;
    private final VerifierKey verifierKey;
    private final Tiles tiles;
    private final NavigableMap<Long, Long> runs = new ConcurrentSkipListMap<>();
    /** The integrated tree; only the integrating thread (holding this object's lock) reads or changes these. */
    private CompactRange range;
    private long lastGlobalIndex;
    private volatile Published latest;

    private LogSequencer(DataSource database, ForcedWrites forcedWrites, Serializer serializer, SigningKey key,
                         String origin) {
        this.database = database;
        this.forcedWrites = forcedWrites;
        this.serializer = serializer;
        this.key = key;
        this.origin = origin;
        this.tiles = new Tiles(database);
        try {
            this.verifierKey = VerifierKey.of(origin, key.publicKey());
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("the origin '" + origin + "' cannot name a signed note: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Opens the log on a database whose event table exists: creates the log's tables when missing (a size-0
     * checkpoint is the first published), reads the integrated tree and checks its root against the last
     * checkpoint. Integrates nothing; call {@link #integrate}.
     */
    public static LogSequencer open(DataSource database, ForcedWrites forcedWrites, Serializer serializer,
                                    SigningKey key, String origin) throws StorageException {
        LogSequencer sequencer = new LogSequencer(database, forcedWrites, serializer, key, origin);
        try (Connection c = database.getConnection()) {
            try {
                LogTables.create(c);
                c.commit();
                sequencer.load(c);
                c.commit();
                forcedWrites.force();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException("cannot open the transparency log's tables: " + e.getMessage(), e);
        }
        return sequencer;
    }

    private void load(Connection c) throws SQLException {
        LogTables.Head head = LogTables.head(c, false);
        CompactRange stored = CompactRange.of(head.size(), tiles);
        String note = LogTables.checkpoint(c, head.size());
        if (note == null && head.size() == 0) {
            note = new Checkpoint(origin, 0, stored.root()).sign(key);
            LogTables.insertCheckpoint(c, 0, note);
        }
        if (note == null) {
            throw new IllegalStateException("the log's head is at size " + head.size() + " but no checkpoint of that"
                    + " size is stored");
        }
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.open(note, verifierKey);
        } catch (InvalidProofException e) {
            throw new IllegalStateException("the stored checkpoint of size " + head.size() + " does not verify with"
                    + " this ledger's key: " + e.getMessage());
        }
        if (checkpoint.size() != head.size() || !Arrays.equals(checkpoint.root(), stored.root())) {
            throw new IllegalStateException("the stored tree of size " + head.size() + " does not have the root of"
                    + " its checkpoint " + checkpoint);
        }
        // What another transaction committed is published only once it is on the disk.
        forcedWrites.force();
        // Runs are history: a reload only ever adds to them, so a reader never sees the map emptied.
        runs.putAll(LogTables.runs(c));
        range = stored;
        lastGlobalIndex = head.lastGlobalIndex();
        latest = new Published(head.size(), stored.root(), note);
    }

    /**
     * Integrates every event committed so far, publishing a checkpoint per {@link #MAX_PER_CHECKPOINT} entries and
     * one for the last; tells {@code listener} of each entry. Returns how many were integrated.
     */
    public synchronized long integrate(Integrated listener) throws StorageException {
        long total = 0;
        while (true) {
            int integrated = integrateOnce(listener);
            total += integrated;
            if (integrated < MAX_PER_CHECKPOINT) {
                return total;
            }
        }
    }

    private int integrateOnce(Integrated listener) throws StorageException {
        List<Receipt> receipts = new ArrayList<>();
        long first;
        try (Connection c = database.getConnection()) {
            try {
                LogTables.Head head = LogTables.head(c, true);
                if (head.size() != range.size() || head.lastGlobalIndex() != lastGlobalIndex) {
                    // Someone else integrated (another sequencer, or a commit this one thought had failed): start
                    // again from what is stored, never from memory.
                    load(c);
                }
                first = range.size();
                CompactRange next = range.copy();
                TileWriter written = new TileWriter(tiles);
                TreeMap<Long, Long> newRuns = new TreeMap<>();
                long last = lastGlobalIndex;
                try (PreparedStatement s = LogTables.eventsFrom(c, lastGlobalIndex + 1, MAX_PER_CHECKPOINT);
                     ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        long globalIndex = r.getLong(1);
                        Receipt receipt = receipt(r.getString(2), r.getString(3), r.getBytes(4));
                        long leaf = next.size();
                        if (globalIndexOf(leaf, newRuns) != globalIndex) {
                            newRuns.put(leaf, globalIndex);
                        }
                        next.append(Merkle.leafHash(receipt.line().getBytes(StandardCharsets.UTF_8)), written);
                        receipts.add(receipt);
                        last = globalIndex;
                    }
                }
                if (receipts.isEmpty()) {
                    c.rollback();
                    return 0;
                }
                forcedWrites.force();
                byte[] root = next.root();
                String note = new Checkpoint(origin, next.size(), root).sign(key);
                Map<Long, byte[]> changed = written.changed();
                LogTables.writeTiles(c, changed);
                LogTables.insertRuns(c, newRuns);
                LogTables.updateHead(c, new LogTables.Head(next.size(), last));
                LogTables.insertCheckpoint(c, next.size(), note);
                c.commit();
                forcedWrites.force();
                tiles.keep(changed);
                runs.putAll(newRuns);
                range = next;
                lastGlobalIndex = last;
                latest = new Published(next.size(), root, note);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException("integration into the transparency log failed, nothing of it was stored: "
                    + e.getMessage(), e);
        }
        for (int i = 0; i < receipts.size(); i++) {
            listener.entry(first + i, receipts.get(i));
        }
        return receipts.size();
    }

    /** The global index the run containing {@code leaf} predicts for it; -1 when no run reaches it yet. */
    private long globalIndexOf(long leaf, TreeMap<Long, Long> newRuns) {
        Map.Entry<Long, Long> run = newRuns.isEmpty() ? runs.floorEntry(leaf) : newRuns.floorEntry(leaf);
        return run == null ? -1 : run.getValue() + (leaf - run.getKey());
    }

    private Receipt receipt(String type, String revision, byte[] payload) {
        Object event = serializer.deserialize(new SimpleSerializedObject<>(payload, byte[].class, type, revision));
        if (!(event instanceof LedgerEvent ledgerEvent)) {
            throw new IllegalStateException("the event store holds a " + type + ", which carries no receipt");
        }
        return ledgerEvent.receipt();
    }

    /** The latest published checkpoint; size 0 before anything is integrated. */
    public Published latest() {
        return latest;
    }

    /** The signed checkpoint published at {@code size}, if one was. */
    public Optional<String> checkpoint(long size) throws StorageException {
        try (Connection c = database.getConnection()) {
            String note = LogTables.checkpoint(c, size);
            c.rollback();
            return Optional.ofNullable(note);
        } catch (SQLException e) {
            throw new StorageException("cannot read the checkpoint of size " + size + ": " + e.getMessage(), e);
        }
    }

    /** RFC 9162 inclusion proof of entry {@code index} in the tree of {@code size} (at most the published size). */
    public List<byte[]> inclusionProof(long index, long size) {
        requirePublished(size);
        return Merkle.inclusionProof(index, size, tiles);
    }

    /** RFC 9162 consistency proof between two sizes, {@code 1 <= from <= to <=} the published size. */
    public List<byte[]> consistencyProof(long from, long to) {
        requirePublished(to);
        return Merkle.consistencyProof(from, to, tiles);
    }

    /** The root of the tree of {@code size} entries (at most the published size). */
    public byte[] root(long size) {
        requirePublished(size);
        return Merkle.root(size, tiles);
    }

    private void requirePublished(long size) {
        if (size > latest.size()) {
            throw new IllegalArgumentException("size " + size + " is past the published tree of " + latest.size());
        }
    }

    /** The JCS lines of the integrated entries from {@code start}, at most {@code limit}; empty past the end. */
    public List<String> entries(long start, int limit) throws StorageException {
        long end = Math.min(latest.size(), start + limit);
        if (start < 0 || start >= end) {
            return List.of();
        }
        Map.Entry<Long, Long> run = runs.floorEntry(start);
        long firstGlobalIndex = run.getValue() + (start - run.getKey());
        List<String> lines = new ArrayList<>((int) (end - start));
        try (Connection c = database.getConnection();
             PreparedStatement s = LogTables.eventsFrom(c, firstGlobalIndex, (int) (end - start));
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                lines.add(receipt(r.getString(2), r.getString(3), r.getBytes(4)).line());
            }
            c.rollback();
        } catch (SQLException e) {
            throw new StorageException("cannot read log entries from " + start + ": " + e.getMessage(), e);
        }
        return lines;
    }
}
