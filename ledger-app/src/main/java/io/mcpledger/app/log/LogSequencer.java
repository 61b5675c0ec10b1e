package io.mcpledger.app.log;

import io.mcpledger.app.storage.ForcedWrites;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.Reads;
import io.mcpledger.app.storage.ReceiptJournal;
import io.mcpledger.app.storage.SignedCheckpoints;
import io.mcpledger.app.storage.SqlDialect;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The transparency log's sequencer: it integrates committed entries of the log ({@link LedgerLog}) into the RFC 9162
 * tree and publishes a signed C2SP checkpoint for each new size. Entry {@code i} is the receipt at log position
 * {@code i}, a position fixed in the transaction that appended it, so a crash between append and integration, or a
 * rebuild of the tree tables, gives every receipt the same index again.
 *
 * <p>Each integration is one transaction that locks the {@code log_head} row, checks that the tree it holds is the
 * stored one, and commits the new tiles, the head and the checkpoint together. Memory is changed only after that
 * commit, so a failed integration leaves nothing behind and the next run repeats it.
 *
 * <p>Nothing is signed over what a power loss could take back: the entries read are forced to disk before the
 * checkpoint is signed, and the checkpoint is forced before it is published. So no crash can make the log sign two
 * different trees of one size. On H2 the checkpoint is forced in the journal ({@link
 * ForcedWrites#forceCheckpoint}), not with the store: a restart after a power loss stores the note again, and the next
 * integration grows the tree past its size over the same entries.
 */
public final class LogSequencer {
    /** Entries per checkpoint when catching up, so one transaction stays a few megabytes. */
    static final int MAX_PER_CHECKPOINT = 10_000;

    /** A published checkpoint: the tree size, its root and the signed note. */
    public record Published(long size, byte[] root, String note) {
    }

    private final DataSource database;
    private final LedgerLog log;
    private final ForcedWrites forcedWrites;
    private final SigningKey key;
    private final String origin;
    private final VerifierKey verifierKey;
    private final Tiles tiles;
    /** The integrated tree; only the integrating thread (holding this object's lock) reads or changes it. */
    private CompactRange range;
    private volatile Published latest;
    /** Guards changes of {@link #latest}, which only ever grows. */
    private final Object published = new Object();
    /** True when other nodes integrate into the same tables. */
    private final boolean shared;

    private LogSequencer(DataSource database, LedgerLog log, ForcedWrites forcedWrites, SigningKey key, String origin,
            int cachedTiles, boolean shared) {
        this.database = database;
        this.shared = shared;
        this.log = log;
        this.forcedWrites = forcedWrites;
        this.key = key;
        this.origin = origin;
        this.tiles = new Tiles(database, cachedTiles);
        try {
            this.verifierKey = VerifierKey.of(origin, key.publicKey());
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("the origin '" + origin + "' cannot name a signed note: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Opens the log on a database whose log table exists: creates the tree's tables when missing (a size-0
     * checkpoint is the first published), reads the integrated tree and checks its root against the last
     * checkpoint. Integrates nothing; call {@link #integrate}.
     */
    public static LogSequencer open(DataSource database, LedgerLog log, ForcedWrites forcedWrites, SigningKey key,
                                    String origin, int cachedTiles) throws StorageException {
        return open(database, log, forcedWrites, key, origin, cachedTiles, false);
    }

    /**
     * As above; {@code shared} when other nodes' sequencers integrate into the same tables: {@link #latest} then
     * reads the stored head, so every node serves the newest checkpoint any of them published.
     */
    public static LogSequencer open(DataSource database, LedgerLog log, ForcedWrites forcedWrites, SigningKey key,
                                    String origin, int cachedTiles, boolean shared) throws StorageException {
        LogSequencer sequencer = new LogSequencer(database, log, forcedWrites, key, origin, cachedTiles, shared);
        try (Connection c = database.getConnection()) {
            try {
                // Created and, on an empty database, given its size-0 checkpoint under one lock: nodes starting
                // together on one PostgreSQL database do it once.
                SqlDialect.of(c).lockSchema(c);
                LogTables.create(c);
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
        long size = LogTables.treeSize(c, false);
        CompactRange stored = CompactRange.of(size, tiles);
        String note = SignedCheckpoints.note(c, size);
        if (note == null && size == 0) {
            note = new Checkpoint(origin, 0, stored.root()).sign(key);
            SignedCheckpoints.keep(c, 0, note);
        }
        if (note == null) {
            throw new IllegalStateException("the log's head is at size " + size + " but no checkpoint of that"
                    + " size is stored");
        }
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.open(note, verifierKey);
        } catch (InvalidProofException e) {
            throw new IllegalStateException("the stored checkpoint of size " + size + " does not verify with"
                    + " this ledger's key: " + e.getMessage());
        }
        if (checkpoint.size() != size || !Arrays.equals(checkpoint.root(), stored.root())) {
            throw new IllegalStateException("the stored tree of size " + size + " does not have the root of"
                    + " its checkpoint " + checkpoint);
        }
        // What another transaction committed is published only once it is on the disk.
        forcedWrites.force();
        range = stored;
        publish(new Published(size, stored.root(), note));
    }

    /**
     * Integrates every entry committed so far, publishing a checkpoint per {@link #MAX_PER_CHECKPOINT} entries and
     * one for the last. Returns how many were integrated.
     */
    public synchronized long integrate() throws StorageException {
        long total = 0;
        while (true) {
            int integrated = integrateOnce();
            total += integrated;
            if (integrated < MAX_PER_CHECKPOINT) {
                return total;
            }
        }
    }

    /**
     * The end of the entries from {@code first} to {@code end} (committed) that a checkpoint may cover: only entries on
     * stable storage, so that no published checkpoint covers a receipt a power cut could take back. A commit is seen
     * here before its forced write returns. Where the journal has forced the entries ({@link
     * ForcedWrites#journaledLogSize}) the integration stops at the journal's end, forcing nothing (the rest waits for
     * the next run); only when the journal holds none of them (at the start, and where there is no journal) is the
     * store forced, which covers every commit before it. A forced write of the store holds every statement back while
     * it takes the store's version (StoreGate), so one saved here shortens the tail of the calls (docs/benchmarks.md,
     * section 8).
     */
    private long durableEnd(long first, long end) throws SQLException {
        long journaled = forcedWrites.journaledLogSize();
        if (journaled >= end) {
            return end;
        }
        if (journaled > first) {
            return journaled;
        }
        if (end > first) {
            forcedWrites.force();
        }
        return end;
    }

    private int integrateOnce() throws StorageException {
        try (Connection c = database.getConnection()) {
            try {
                long size = LogTables.treeSize(c, true);
                if (size != range.size()) {
                    // Someone else integrated (another sequencer, or a commit this one thought had failed): start
                    // again from what is stored, never from memory.
                    load(c);
                }
                long first = range.size();
                long end = durableEnd(first, Math.min(log.size(), first + MAX_PER_CHECKPOINT));
                if (end <= first) {
                    // Only read (and locked the tree's size, which the end releases): ends as reads do, keeping the
                    // connection's parsed statements for the next integration.
                    Reads.end(c);
                    return 0;
                }
                CompactRange next = range.copy();
                TileWriter written = new TileWriter(tiles);
                log.lines(first, end, (position, line) -> next.append(Merkle.leafHash(line), written));
                byte[] root = next.root();
                String note = new Checkpoint(origin, next.size(), root).sign(key);
                Map<Long, byte[]> changed = written.changed();
                LogTables.writeTiles(c, changed);
                LogTables.updateTreeSize(c, next.size());
                SignedCheckpoints.keep(c, next.size(), note);
                c.commit();
                forcedWrites.forceCheckpoint(new ReceiptJournal.SignedCheckpoint(next.size(), note));
                tiles.keep(changed);
                range = next;
                publish(new Published(next.size(), root, note));
                return (int) (end - first);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException("integration into the transparency log failed, nothing of it was stored: "
                    + e.getMessage(), e);
        }
    }

    private void publish(Published checkpoint) {
        synchronized (published) {
            if (latest == null || checkpoint.size() >= latest.size()) {
                latest = checkpoint;
            }
        }
    }

    /**
     * The latest published checkpoint; size 0 before anything is integrated. On a database other nodes share, the
     * stored one, which another node may have published since this one last integrated.
     */
    public Published latest() {
        if (shared) {
            refresh();
        }
        return latest;
    }

    /** Takes the stored head when it is ahead of the one in memory (another node integrated). */
    private void refresh() {
        try (Connection c = Reads.connection(database)) {
            long size = LogTables.treeSize(c, false);
            String note = size > latest.size() ? SignedCheckpoints.note(c, size) : null;
            Reads.end(c);
            if (note == null) {
                return;
            }
            Checkpoint checkpoint = Checkpoint.open(note, verifierKey);
            synchronized (published) {
                if (checkpoint.size() > latest.size()) {
                    latest = new Published(checkpoint.size(), checkpoint.root(), note);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the log's latest checkpoint: " + e.getMessage(), e);
        } catch (InvalidProofException e) {
            throw new IllegalStateException("the stored checkpoint does not verify with this ledger's key: "
                    + e.getMessage(), e);
        }
    }

    /** The signed checkpoint published at {@code size}, if one was. */
    public Optional<String> checkpoint(long size) throws StorageException {
        try (Connection c = Reads.connection(database)) {
            String note = SignedCheckpoints.note(c, size);
            Reads.end(c);
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
        if (size > latest().size()) {
            throw new IllegalArgumentException("size " + size + " is past the published tree of " + latest.size());
        }
    }

    /** The JCS lines of the integrated entries from {@code start}, at most {@code limit}; empty past the end. */
    public List<String> entries(long start, int limit) {
        long end = Math.min(latest().size(), start + limit);
        if (start < 0 || start >= end) {
            return List.of();
        }
        List<String> lines = new ArrayList<>((int) (end - start));
        log.lines(start, end, (position, line) -> lines.add(new String(line, StandardCharsets.UTF_8)));
        return lines;
    }
}
