package io.mcpledger.app.log;

import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Collects the tiles an integration changes: every leaf hash and every completed subtree at a level that is a
 * multiple of 8 goes to its tile, starting from the stored copy of a tile that is partly full.
 */
final class TileWriter implements CompactRange.NodeSink {
    private final Tiles stored;
    private final Map<Long, Buffer> changed = new LinkedHashMap<>();

    TileWriter(Tiles stored) {
        this.stored = stored;
    }

    @Override
    public void completed(int level, long index, byte[] hash) {
        if (level % Tiles.HEIGHT != 0) {
            return;
        }
        int tileLevel = level / Tiles.HEIGHT;
        long tileIndex = index / Tiles.WIDTH;
        int position = (int) (index % Tiles.WIDTH);
        Buffer tile = changed.computeIfAbsent(TileKey.of(tileLevel, tileIndex), key -> {
            Buffer fresh = new Buffer();
            if (position > 0) {
                System.arraycopy(stored.tile(tileLevel, tileIndex, position), 0, fresh.hashes, 0,
                        position * Merkle.HASH_SIZE);
                fresh.width = position;
            }
            return fresh;
        });
        if (tile.width != position) {
            throw new IllegalStateException("tile " + tileLevel + "/" + tileIndex + " holds " + tile.width
                    + " hashes; the next one is number " + position);
        }
        System.arraycopy(hash, 0, tile.hashes, position * Merkle.HASH_SIZE, Merkle.HASH_SIZE);
        tile.width++;
    }

    /** The changed tiles, each whole, by {@link TileKey}. */
    Map<Long, byte[]> changed() {
        Map<Long, byte[]> tiles = new LinkedHashMap<>();
        changed.forEach((key, tile) -> tiles.put(key, Arrays.copyOf(tile.hashes, tile.width * Merkle.HASH_SIZE)));
        return tiles;
    }

    private static final class Buffer {
        final byte[] hashes = new byte[Tiles.WIDTH * Merkle.HASH_SIZE];
        int width;
    }
}
