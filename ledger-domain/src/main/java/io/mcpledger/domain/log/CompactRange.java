package io.mcpledger.domain.log;

import java.util.ArrayList;
import java.util.List;

/**
 * The right edge of a growing tree: one hash per set bit of its size, the complete subtrees that make up
 * {@code D[0:size]}. Appending a leaf merges equal-sized subtrees, and every subtree it completes is handed to a
 * {@link NodeSink} for storage; the root is a fold of at most 64 hashes. The offline verifier uses it with no
 * sink to compute the root of a bundle in one pass.
 */
public final class CompactRange {
    /** Receives each complete subtree when an append completes it; leaves are level 0. */
    @FunctionalInterface
    public interface NodeSink {
        void completed(int level, long index, byte[] hash);
    }

    private static final NodeSink NONE = (level, index, hash) -> { };

    private final List<byte[]> hashes;
    private long size;

    private CompactRange(long size, List<byte[]> hashes) {
        this.size = size;
        this.hashes = hashes;
    }

    /** The empty tree. */
    public static CompactRange empty() {
        return new CompactRange(0, new ArrayList<>());
    }

    /** The range of a stored tree of {@code size} leaves, read from its complete subtrees. */
    public static CompactRange of(long size, NodeSource nodes) {
        if (size < 0) {
            throw new IllegalArgumentException("a tree size is at least 0, got " + size);
        }
        List<byte[]> hashes = new ArrayList<>();
        for (int level = 63; level >= 0; level--) {
            if ((size >>> level & 1) == 1) {
                hashes.add(nodes.node(level, (size >>> level) - 1));
            }
        }
        return new CompactRange(size, hashes);
    }

    /** An independent copy, to grow without changing this one. */
    public CompactRange copy() {
        return new CompactRange(size, new ArrayList<>(hashes));
    }

    public long size() {
        return size;
    }

    /** Appends the leaf with this leaf hash. */
    public void append(byte[] leafHash) {
        append(leafHash, NONE);
    }

    /** Appends the leaf with this leaf hash, handing {@code sink} the leaf and every subtree it completes. */
    public void append(byte[] leafHash, NodeSink sink) {
        long index = size;
        byte[] hash = leafHash;
        int level = 0;
        sink.completed(0, index, hash);
        while ((index >>> level & 1) == 1) {
            hash = Merkle.nodeHash(hashes.remove(hashes.size() - 1), hash);
            level++;
            sink.completed(level, index >>> level, hash);
        }
        hashes.add(hash);
        size++;
    }

    /** {@code MTH(D[0:size])}; the empty root for size 0. */
    public byte[] root() {
        if (hashes.isEmpty()) {
            return Merkle.emptyRoot();
        }
        byte[] root = hashes.get(hashes.size() - 1);
        for (int i = hashes.size() - 2; i >= 0; i--) {
            root = Merkle.nodeHash(hashes.get(i), root);
        }
        return root;
    }
}
