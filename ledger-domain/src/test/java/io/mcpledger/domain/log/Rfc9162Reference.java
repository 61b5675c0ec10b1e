package io.mcpledger.domain.log;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RFC 9162 written the slow way, straight from the definitions and independent of {@link Merkle}: its own SHA-256,
 * {@code MTH}, {@code PATH} and {@code PROOF} by recursion over the leaves, and verification that walks the tree's
 * shape top-down instead of the RFC's bit arithmetic. Properties use it to decide what the verifier must answer,
 * including the rare changed statements that are still true.
 */
final class Rfc9162Reference {
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private Rfc9162Reference() {
    }

    static byte[] leafHash(byte[] leaf) {
        return sha256(new byte[] {0x00}, leaf);
    }

    static byte[] nodeHash(byte[] left, byte[] right) {
        return sha256(new byte[] {0x01}, left, right);
    }

    /** The largest power of two smaller than {@code n}, by doubling. */
    static long k(long n) {
        long k = 1;
        while (k * 2 < n) {
            k *= 2;
        }
        return k;
    }

    /** {@code MTH(D[lo:hi])} over leaf hashes. */
    static byte[] mth(List<byte[]> leafHashes, int lo, int hi) {
        if (hi - lo == 1) {
            return leafHashes.get(lo);
        }
        int k = (int) k(hi - lo);
        return nodeHash(mth(leafHashes, lo, lo + k), mth(leafHashes, lo + k, hi));
    }

    /** {@code PATH(m, D[lo:hi])}, section 2.1.3.1. */
    static List<byte[]> path(int m, List<byte[]> leafHashes, int lo, int hi) {
        List<byte[]> path = new ArrayList<>();
        if (hi - lo == 1) {
            return path;
        }
        int k = (int) k(hi - lo);
        if (m < k) {
            path.addAll(path(m, leafHashes, lo, lo + k));
            path.add(mth(leafHashes, lo + k, hi));
        } else {
            path.addAll(path(m - k, leafHashes, lo + k, hi));
            path.add(mth(leafHashes, lo, lo + k));
        }
        return path;
    }

    /** {@code PROOF(m, D[0:n])} = {@code SUBPROOF(m, D[0:n], true)}, section 2.1.4.1. */
    static List<byte[]> proof(int m, List<byte[]> leafHashes, int n) {
        return subproof(m, leafHashes, 0, n, true);
    }

    private static List<byte[]> subproof(int m, List<byte[]> leafHashes, int lo, int hi, boolean b) {
        List<byte[]> proof = new ArrayList<>();
        int n = hi - lo;
        if (m == n) {
            if (!b) {
                proof.add(mth(leafHashes, lo, hi));
            }
            return proof;
        }
        int k = (int) k(n);
        if (m <= k) {
            proof.addAll(subproof(m, leafHashes, lo, lo + k, b));
            proof.add(mth(leafHashes, lo + k, hi));
        } else {
            proof.addAll(subproof(m - k, leafHashes, lo + k, hi, false));
            proof.add(mth(leafHashes, lo, lo + k));
        }
        return proof;
    }

    /**
     * Whether {@code path} proves {@code leafHash} is leaf {@code index} of the tree of {@code size} with {@code root}:
     * it has one 32-byte hash per level from the root down to that leaf (the last hash is the root's other child)
     * and folding them along the tree's shape gives {@code root}.
     */
    static boolean verifiesInclusion(long index, long size, byte[] leafHash, List<byte[]> path, byte[] root) {
        if (size < 1 || index < 0 || index >= size || !allHashes(path) || leafHash.length != 32) {
            return false;
        }
        Cursor cursor = new Cursor(path);
        byte[] computed = inclusionWalk(index, 0, size, leafHash, cursor);
        return computed != null && cursor.next == -1 && Arrays.equals(computed, root);
    }

    private static byte[] inclusionWalk(long index, long lo, long hi, byte[] leafHash, Cursor cursor) {
        if (hi - lo == 1) {
            return leafHash;
        }
        byte[] sibling = cursor.take();
        if (sibling == null) {
            return null;
        }
        long k = k(hi - lo);
        if (index < lo + k) {
            byte[] left = inclusionWalk(index, lo, lo + k, leafHash, cursor);
            return left == null ? null : nodeHash(left, sibling);
        }
        byte[] right = inclusionWalk(index, lo + k, hi, leafHash, cursor);
        return right == null ? null : nodeHash(sibling, right);
    }

    /**
     * Whether {@code proof} shows the tree of {@code size2} with {@code root2} extends the tree of {@code size1} with
     * {@code root1}: undoing {@code SUBPROOF} top-down rebuilds both roots from exactly the proof's hashes. Equal
     * sizes need an empty proof and equal roots; size 0 is refused, as the ledger does.
     */
    static boolean verifiesConsistency(long size1, long size2, List<byte[]> proof, byte[] root1, byte[] root2) {
        if (size1 < 1 || size2 < size1) {
            return false;
        }
        if (size1 == size2) {
            return proof.isEmpty() && Arrays.equals(root1, root2);
        }
        if (!allHashes(proof) || root1.length != 32 || root2.length != 32) {
            return false;
        }
        Cursor cursor = new Cursor(proof);
        byte[][] roots = consistencyWalk(size1, size2, true, root1, cursor);
        return roots != null && cursor.next == -1 && Arrays.equals(roots[0], root1) && Arrays.equals(roots[1], root2);
    }

    /** {old part, whole} hashes of a subtree of {@code n} leaves whose first {@code m} are in the old tree. */
    private static byte[][] consistencyWalk(long m, long n, boolean b, byte[] root1, Cursor cursor) {
        if (m == n) {
            if (b) {
                return new byte[][] {root1, root1};
            }
            byte[] hash = cursor.take();
            return hash == null ? null : new byte[][] {hash, hash};
        }
        byte[] sibling = cursor.take();
        if (sibling == null) {
            return null;
        }
        long k = k(n);
        if (m <= k) {
            byte[][] left = consistencyWalk(m, k, b, root1, cursor);
            return left == null ? null : new byte[][] {left[0], nodeHash(left[1], sibling)};
        }
        byte[][] right = consistencyWalk(m - k, n - k, false, root1, cursor);
        return right == null ? null : new byte[][] {nodeHash(sibling, right[0]), nodeHash(sibling, right[1])};
    }

    private static boolean allHashes(List<byte[]> hashes) {
        return hashes.stream().allMatch(h -> h != null && h.length == 32);
    }

    /** Reads a proof from its last hash (the top of the tree) down to its first. */
    private static final class Cursor {
        private final List<byte[]> hashes;
        private int next;

        Cursor(List<byte[]> hashes) {
            this.hashes = hashes;
            this.next = hashes.size() - 1;
        }

        byte[] take() {
            return next < 0 ? null : hashes.get(next--);
        }
    }

    private static byte[] sha256(byte[]... parts) {
        MessageDigest md = SHA256.get();
        for (byte[] part : parts) {
            md.update(part);
        }
        return md.digest();
    }
}
