package io.mcpledger.domain.log;

/** Stored hashes of complete subtrees, from which proofs are built without rehashing the log. */
@FunctionalInterface
public interface NodeSource {
    /**
     * The hash of the complete subtree of {@code 2^level} leaves that starts at leaf {@code index << level}; the
     * caller asks only for subtrees inside the tree it is proving.
     */
    byte[] node(int level, long index);
}
