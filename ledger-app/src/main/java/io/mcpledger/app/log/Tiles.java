package io.mcpledger.app.log;

import io.mcpledger.app.storage.Reads;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.NodeSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The stored tree as a {@link NodeSource}: a subtree at level {@code h} is hashed up from at most 128 hashes of one
 * tile at level {@code h / 8}, so a proof reads O(log n) tiles (the leaf's and the right edge's, five at a million
 * entries) instead of rehashing the log. Recently read tiles stay in memory; the sequencer puts each tile it writes
 * here once it is committed.
 */
final class Tiles implements NodeSource {
    /** Hashes per tile, as in C2SP tlog-tiles. */
    static final int WIDTH = 256;
    /** Tree levels per tile level. */
    static final int HEIGHT = 8;
    private final DataSource database;
    private final Map<Long, byte[]> cache;

    /** Keeps up to {@code cached} tiles (8 KiB each) in memory, those read or written last. */
    Tiles(DataSource database, int cached) {
        if (cached < 0) {
            throw new IllegalArgumentException("cached tiles must be at least 0, got " + cached);
        }
        this.database = database;
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, byte[]> eldest) {
                return size() > cached;
            }
        };
    }

    @Override
    public byte[] node(int level, long index) {
        int tileLevel = level / HEIGHT;
        int height = level % HEIGHT;
        long first = index << height;
        int offset = (int) (first % WIDTH);
        int count = 1 << height;
        byte[] tile = tile(tileLevel, first / WIDTH, offset + count);
        byte[][] hashes = new byte[count][];
        for (int i = 0; i < count; i++) {
            int from = (offset + i) * Merkle.HASH_SIZE;
            hashes[i] = Arrays.copyOfRange(tile, from, from + Merkle.HASH_SIZE);
        }
        for (int n = count; n > 1; n /= 2) {
            for (int i = 0; i < n / 2; i++) {
                hashes[i] = Merkle.nodeHash(hashes[2 * i], hashes[2 * i + 1]);
            }
        }
        return hashes[0];
    }

    /** A tile holding at least {@code width} hashes; a cached copy narrower than that is read again. */
    byte[] tile(int level, long index, int width) {
        long key = TileKey.of(level, index);
        byte[] tile;
        synchronized (cache) {
            tile = cache.get(key);
        }
        if (tile == null || tile.length < width * Merkle.HASH_SIZE) {
            try (Connection c = Reads.connection(database)) {
                tile = LogTables.tile(c, level, index);
                Reads.end(c);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read tile " + level + "/" + index + " of the log: "
                        + e.getMessage(), e);
            }
            if (tile == null || tile.length < width * Merkle.HASH_SIZE) {
                throw new IllegalStateException("tile " + level + "/" + index + " of the log holds "
                        + (tile == null ? 0 : tile.length / Merkle.HASH_SIZE) + " hashes, fewer than the " + width
                        + " the tree needs: the tree storage does not match its head");
            }
            keep(key, tile);
        }
        return tile;
    }

    /** Tiles just committed; a wider copy already cached is kept. */
    void keep(Map<Long, byte[]> written) {
        written.forEach(this::keep);
    }

    private void keep(long key, byte[] tile) {
        synchronized (cache) {
            cache.merge(key, tile, (old, fresh) -> fresh.length >= old.length ? fresh : old);
        }
    }
}
