package io.mcpledger.app.log;

/** A tile's (level, index) packed in one long for map keys: 8 bits of level, 56 of index. */
final class TileKey {
    private TileKey() {
    }

    static long of(int level, long index) {
        return (long) level << 56 | index;
    }

    static int level(long key) {
        return (int) (key >>> 56);
    }

    static long index(long key) {
        return key & 0x00FF_FFFF_FFFF_FFFFL;
    }
}
