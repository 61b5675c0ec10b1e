package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A tree of random leaves (0 to 16 random bytes each, so equal leaves happen), built with {@link CompactRange}
 * the way the sequencer builds the log: every completed subtree goes into a map that then serves as the
 * {@link NodeSource}.
 */
final class RandomTree {
    final List<byte[]> leaves = new ArrayList<>();
    final List<byte[]> leafHashes = new ArrayList<>();
    final Map<Long, byte[]> nodes = new HashMap<>();
    final CompactRange range = CompactRange.empty();

    RandomTree(long seed, int size) {
        Random random = new Random(seed);
        for (int i = 0; i < size; i++) {
            byte[] leaf = new byte[random.nextInt(17)];
            random.nextBytes(leaf);
            leaves.add(leaf);
            byte[] leafHash = Merkle.leafHash(leaf);
            leafHashes.add(leafHash);
            range.append(leafHash, (level, index, hash) -> nodes.put(key(level, index), hash));
        }
    }

    static long key(int level, long index) {
        return (long) level << 56 | index;
    }

    /** The stored subtrees; asking for one that was never completed fails the test. */
    NodeSource source() {
        return (level, index) -> {
            byte[] hash = nodes.get(key(level, index));
            assertThat(hash).as("stored node %d/%d", level, index).isNotNull();
            return hash;
        };
    }

    /** The root of the first {@code size} leaves, from a separate compact range. */
    byte[] rootOf(long size) {
        CompactRange prefix = CompactRange.empty();
        for (int i = 0; i < size; i++) {
            prefix.append(leafHashes.get(i));
        }
        return prefix.root();
    }
}
