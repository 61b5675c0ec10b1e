package io.mcpledger.domain.log;

import io.mcpledger.domain.crypto.Sha256;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The RFC 9162 Merkle tree: leaf and node hashes, building inclusion and consistency proofs from stored subtree
 * hashes (section 2.1.3.1 and 2.1.4.1) and verifying them exactly as sections 2.1.3.2 and 2.1.4.2 say.
 */
public final class Merkle {
    /** Every hash in the tree is a SHA-256 digest. */
    public static final int HASH_SIZE = 32;

    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(Sha256::newDigest);
    private static final byte[] EMPTY_ROOT = Sha256.digest();

    private Merkle() {
    }

    /** {@code SHA-256(0x00 || leaf)}. */
    public static byte[] leafHash(byte[] leaf) {
        return leafHash(leaf, 0, leaf.length);
    }

    /** The leaf hash of {@code length} bytes of {@code bytes} from {@code offset}. */
    public static byte[] leafHash(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        MessageDigest md = DIGEST.get();
        md.update((byte) 0x00);
        md.update(bytes, offset, length);
        return md.digest();
    }

    /** {@code SHA-256(0x01 || left || right)}. */
    public static byte[] nodeHash(byte[] left, byte[] right) {
        MessageDigest md = DIGEST.get();
        md.update((byte) 0x01);
        md.update(left);
        md.update(right);
        return md.digest();
    }

    /** The root of the empty tree, {@code SHA-256("")}. */
    public static byte[] emptyRoot() {
        return EMPTY_ROOT.clone();
    }

    /** The largest power of two strictly below {@code n}, for {@code n >= 2}: RFC 9162's {@code k}. */
    static long split(long n) {
        return Long.highestOneBit(n - 1);
    }

    /** {@code MTH(D[start:end])}, from the fewest stored subtrees; {@code start} is where the RFC recursion puts it. */
    public static byte[] rangeHash(long start, long end, NodeSource nodes) {
        long n = end - start;
        if (n < 1) {
            throw new IllegalArgumentException("empty range [" + start + ", " + end + ")");
        }
        if (Long.bitCount(n) == 1 && start % n == 0) {
            int level = Long.numberOfTrailingZeros(n);
            return nodes.node(level, start >>> level);
        }
        long k = split(n);
        return nodeHash(rangeHash(start, start + k, nodes), rangeHash(start + k, end, nodes));
    }

    /** The root of a tree of {@code size} leaves; the empty root for size 0. */
    public static byte[] root(long size, NodeSource nodes) {
        return size == 0 ? emptyRoot() : rangeHash(0, size, nodes);
    }

    /** RFC 9162 {@code PATH(index, D[size])}, deepest hash first. */
    public static List<byte[]> inclusionProof(long index, long size, NodeSource nodes) {
        if (index < 0 || index >= size) {
            throw new IllegalArgumentException("leaf " + index + " is not in a tree of size " + size);
        }
        List<byte[]> path = new ArrayList<>();
        long lo = 0;
        long hi = size;
        List<byte[]> upward = new ArrayList<>();
        while (hi - lo > 1) {
            long k = split(hi - lo);
            if (index < lo + k) {
                upward.add(rangeHash(lo + k, hi, nodes));
                hi = lo + k;
            } else {
                upward.add(rangeHash(lo, lo + k, nodes));
                lo = lo + k;
            }
        }
        for (int i = upward.size() - 1; i >= 0; i--) {
            path.add(upward.get(i));
        }
        return path;
    }

    /** RFC 9162 {@code PROOF(size1, D[size2])}; empty when the sizes are equal. */
    public static List<byte[]> consistencyProof(long size1, long size2, NodeSource nodes) {
        if (size1 < 1 || size1 > size2) {
            throw new IllegalArgumentException("no consistency proof from size " + size1 + " to size " + size2);
        }
        List<byte[]> upward = new ArrayList<>();
        long m = size1;
        long lo = 0;
        long hi = size2;
        boolean whole = true;
        while (m != hi - lo) {
            long k = split(hi - lo);
            if (m <= k) {
                upward.add(rangeHash(lo + k, hi, nodes));
                hi = lo + k;
            } else {
                upward.add(rangeHash(lo, lo + k, nodes));
                m -= k;
                lo = lo + k;
                whole = false;
            }
        }
        if (!whole) {
            upward.add(rangeHash(lo, hi, nodes));
        }
        List<byte[]> proof = new ArrayList<>(upward.size());
        for (int i = upward.size() - 1; i >= 0; i--) {
            proof.add(upward.get(i));
        }
        return proof;
    }

    /** RFC 9162 section 2.1.3.2: the root an inclusion proof gives for {@code leafHash} at {@code index}. */
    public static byte[] rootFromInclusion(long index, long size, byte[] leafHash, List<byte[]> path)
            throws InvalidProofException {
        if (index < 0 || size < 1 || index >= size) {
            throw new InvalidProofException("leaf index " + index + " is not below the tree size " + size);
        }
        requireHash("leaf hash", leafHash);
        long fn = index;
        long sn = size - 1;
        byte[] r = leafHash;
        for (int i = 0; i < path.size(); i++) {
            byte[] p = requireHash("inclusion proof hash " + i, path.get(i));
            if (sn == 0) {
                throw new InvalidProofException("the inclusion proof has " + path.size()
                        + " hashes, more than leaf " + index + " of a tree of size " + size + " needs");
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = nodeHash(p, r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                r = nodeHash(r, p);
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        if (sn != 0) {
            throw new InvalidProofException("the inclusion proof has " + path.size()
                    + " hashes, fewer than leaf " + index + " of a tree of size " + size + " needs");
        }
        return r;
    }

    /** RFC 9162 section 2.1.3.2: {@code leafHash} is leaf {@code index} of the tree of {@code size} with {@code root}. */
    public static void verifyInclusion(long index, long size, byte[] leafHash, List<byte[]> path, byte[] root)
            throws InvalidProofException {
        byte[] computed = rootFromInclusion(index, size, leafHash, path);
        if (!MessageDigest.isEqual(computed, root)) {
            throw new InvalidProofException("the inclusion proof of leaf " + index + " does not lead to the root of the"
                    + " tree of size " + size);
        }
    }

    /**
     * RFC 9162 section 2.1.4.2: the tree of {@code size2} with {@code root2} extends the tree of {@code size1} with
     * {@code root1}. Equal sizes need an empty proof and equal roots; size 0 is refused, as the ledger publishes no
     * proof from it.
     */
    public static void verifyConsistency(long size1, long size2, List<byte[]> proof, byte[] root1, byte[] root2)
            throws InvalidProofException {
        if (size1 < 1) {
            throw new InvalidProofException("a consistency proof starts at size 1 or more, not " + size1);
        }
        if (size2 < size1) {
            throw new InvalidProofException("size " + size2 + " is smaller than size " + size1 + ": the log shrank");
        }
        if (size1 == size2) {
            if (!proof.isEmpty()) {
                throw new InvalidProofException("the sizes are equal, so the proof must be empty; it has "
                        + proof.size() + " hashes");
            }
            if (!MessageDigest.isEqual(root1, root2)) {
                throw new InvalidProofException("two trees of size " + size1 + " have different roots");
            }
            return;
        }
        if (proof.isEmpty()) {
            throw new InvalidProofException("the consistency proof from " + size1 + " to " + size2 + " is empty");
        }
        requireHash("first root", root1);
        requireHash("second root", root2);
        List<byte[]> path = new ArrayList<>(proof.size() + 1);
        if (Long.bitCount(size1) == 1) {
            path.add(root1);
        }
        for (int i = 0; i < proof.size(); i++) {
            path.add(requireHash("consistency proof hash " + i, proof.get(i)));
        }
        long fn = size1 - 1;
        long sn = size2 - 1;
        while ((fn & 1) == 1) {
            fn >>>= 1;
            sn >>>= 1;
        }
        byte[] fr = path.get(0);
        byte[] sr = path.get(0);
        for (int i = 1; i < path.size(); i++) {
            byte[] c = path.get(i);
            if (sn == 0) {
                throw new InvalidProofException("the consistency proof from " + size1 + " to " + size2 + " has "
                        + proof.size() + " hashes, more than it needs");
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = nodeHash(c, fr);
                sr = nodeHash(c, sr);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                sr = nodeHash(sr, c);
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        if (sn != 0) {
            throw new InvalidProofException("the consistency proof from " + size1 + " to " + size2 + " has "
                    + proof.size() + " hashes, fewer than it needs");
        }
        if (!MessageDigest.isEqual(fr, root1)) {
            throw new InvalidProofException("the consistency proof does not lead to the root of size " + size1);
        }
        if (!MessageDigest.isEqual(sr, root2)) {
            throw new InvalidProofException("the consistency proof does not lead to the root of size " + size2);
        }
    }

    private static byte[] requireHash(String what, byte[] hash) throws InvalidProofException {
        if (hash == null || hash.length != HASH_SIZE) {
            throw new InvalidProofException("the " + what + " is " + (hash == null ? "missing" : hash.length + " bytes")
                    + "; a hash is " + HASH_SIZE + " bytes");
        }
        return hash;
    }
}
