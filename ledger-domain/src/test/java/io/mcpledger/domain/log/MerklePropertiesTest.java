package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Random trees of 1 to 3000 leaves, built with {@link CompactRange} and stored as the sequencer stores them:
 * proofs built from the stored subtrees are RFC 9162's and verify against roots computed apart from the code
 * under test, and any change to a proof, leaf hash, root, index or size is refused unless {@link Rfc9162Reference}
 * finds the changed statement still true.
 */
class MerklePropertiesTest {
    private static final int MAX_LEAVES = 3000;

    /** Leaf {@code index} of the tree of the first {@code size} of {@code leaves} random leaves. */
    record InclusionCase(long seed, int leaves, int size, int index) {
    }

    /** From the first {@code size1} to the first {@code size2} of {@code leaves} random leaves. */
    record ConsistencyCase(long seed, int leaves, int size1, int size2) {
    }

    /** A tree of {@code leaves} random leaves, of which the first {@code size} are stored. */
    record PrefixCase(long seed, int leaves, int size) {
    }

    @Provide
    Arbitrary<InclusionCase> inclusions() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(1, MAX_LEAVES))
                .flatAs((seed, leaves) -> Arbitraries.integers().between(1, leaves)
                        .flatMap(size -> Arbitraries.integers().between(0, size - 1)
                                .map(index -> new InclusionCase(seed, leaves, size, index))));
    }

    @Provide
    Arbitrary<ConsistencyCase> consistencies() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(1, MAX_LEAVES))
                .flatAs((seed, leaves) -> Arbitraries.integers().between(1, leaves)
                        .flatMap(size2 -> Arbitraries.integers().between(1, size2)
                                .map(size1 -> new ConsistencyCase(seed, leaves, size1, size2))));
    }

    @Provide
    Arbitrary<PrefixCase> prefixes() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(1, MAX_LEAVES))
                .flatAs((seed, leaves) -> Arbitraries.integers().between(0, leaves)
                        .map(size -> new PrefixCase(seed, leaves, size)));
    }

    // Hashes and building proofs

    @Property(tries = 300)
    void leafAndNodeHashesAreTheRfcOnes(@ForAll byte[] leaf, @ForAll Random random) {
        byte[] left = randomHash(random);
        byte[] right = randomHash(random);
        assertThat(Merkle.leafHash(leaf)).isEqualTo(Rfc9162Reference.leafHash(leaf));
        assertThat(Merkle.nodeHash(left, right)).isEqualTo(Rfc9162Reference.nodeHash(left, right));
    }

    @Property(tries = 300)
    void compactRangeRootIsTheRfcTreeHeadAndTheRootFromStoredNodes(@ForAll("prefixes") PrefixCase c) {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        byte[] expected = c.size() == 0 ? Merkle.emptyRoot() : Rfc9162Reference.mth(tree.leafHashes, 0, c.size());
        assertThat(tree.rootOf(c.size())).isEqualTo(expected);
        assertThat(Merkle.root(c.size(), tree.source())).isEqualTo(expected);
    }

    @Property(tries = 300)
    void inclusionProofVerifiesAgainstTheCompactRangeRoot(@ForAll("inclusions") InclusionCase c) throws Exception {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        List<byte[]> proof = Merkle.inclusionProof(c.index(), c.size(), tree.source());
        byte[] root = tree.rootOf(c.size());
        byte[] leafHash = Merkle.leafHash(tree.leaves.get(c.index()));
        assertThat(Merkle.rootFromInclusion(c.index(), c.size(), leafHash, proof)).isEqualTo(root);
        assertThatCode(() -> Merkle.verifyInclusion(c.index(), c.size(), leafHash, proof, root)).doesNotThrowAnyException();
        assertThat(Merkle.root(c.size(), tree.source())).isEqualTo(root);
    }

    @Property(tries = 300)
    void inclusionProofIsTheRfcPath(@ForAll("inclusions") InclusionCase c) {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        assertThat(Merkle.inclusionProof(c.index(), c.size(), tree.source()))
                .usingElementComparator(Arrays::compare)
                .containsExactlyElementsOf(Rfc9162Reference.path(c.index(), tree.leafHashes, 0, c.size()));
    }

    @Property(tries = 300)
    void consistencyProofVerifiesWithTheRootsOfBothSizes(@ForAll("consistencies") ConsistencyCase c) {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        List<byte[]> proof = Merkle.consistencyProof(c.size1(), c.size2(), tree.source());
        byte[] root1 = tree.rootOf(c.size1());
        byte[] root2 = tree.rootOf(c.size2());
        assertThatCode(() -> Merkle.verifyConsistency(c.size1(), c.size2(), proof, root1, root2))
                .doesNotThrowAnyException();
    }

    @Property(tries = 300)
    void consistencyProofIsTheRfcProof(@ForAll("consistencies") ConsistencyCase c) {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        assertThat(Merkle.consistencyProof(c.size1(), c.size2(), tree.source()))
                .usingElementComparator(Arrays::compare)
                .containsExactlyElementsOf(Rfc9162Reference.proof(c.size1(), tree.leafHashes, c.size2()));
    }

    @Property(tries = 300)
    void compactRangeRestoredFromStoredNodesGrowsLikeTheIncrementalOne(@ForAll("prefixes") PrefixCase c) {
        RandomTree tree = new RandomTree(c.seed(), c.leaves());
        RandomTree stored = new RandomTree(c.seed(), c.size());
        CompactRange restored = CompactRange.of(c.size(), stored.source());
        CompactRange incremental = CompactRange.empty();
        for (int i = 0; i < c.size(); i++) {
            incremental.append(tree.leafHashes.get(i));
        }
        assertThat(restored.size()).isEqualTo(c.size());
        assertThat(restored.root()).isEqualTo(incremental.root()).isEqualTo(stored.range.root());
        List<String> restoredNodes = new ArrayList<>();
        List<byte[]> restoredHashes = new ArrayList<>();
        List<String> incrementalNodes = new ArrayList<>();
        List<byte[]> incrementalHashes = new ArrayList<>();
        for (int i = c.size(); i < c.leaves(); i++) {
            restored.append(tree.leafHashes.get(i), (level, index, hash) -> {
                restoredNodes.add(level + "/" + index);
                restoredHashes.add(hash);
            });
            incremental.append(tree.leafHashes.get(i), (level, index, hash) -> {
                incrementalNodes.add(level + "/" + index);
                incrementalHashes.add(hash);
            });
            if (i == c.size() || Long.bitCount(i + 1) == 1) {
                assertThat(restored.root()).as("root of size %d", i + 1).isEqualTo(incremental.root());
            }
        }
        assertThat(restoredNodes).as("subtrees completed after size %d", c.size()).isEqualTo(incrementalNodes);
        assertThat(restoredHashes).as("their hashes").usingElementComparator(Arrays::compare)
                .containsExactlyElementsOf(incrementalHashes);
        assertThat(restored.size()).isEqualTo(c.leaves());
        assertThat(restored.root()).isEqualTo(tree.range.root());
    }

    // Changed inclusion statements

    @Property(tries = 200)
    void inclusionWithAnyProofHashBitFlippedIsRefused(@ForAll("inclusions") InclusionCase c, @ForAll Random random)
            throws Exception {
        Inclusion honest = Inclusion.of(c);
        Assume.that(!honest.proof.isEmpty());
        for (int at = 0; at < honest.proof.size(); at++) {
            List<byte[]> changed = new ArrayList<>(honest.proof);
            changed.set(at, flip(changed.get(at), random));
            honest.withProof(changed).assertRefused("proof hash " + at + " flipped");
        }
    }

    @Property(tries = 200)
    void inclusionWithTheLeafHashBitFlippedIsRefused(@ForAll("inclusions") InclusionCase c, @ForAll Random random)
            throws Exception {
        Inclusion honest = Inclusion.of(c);
        new Inclusion(honest.index, honest.size, flip(honest.leafHash, random), honest.proof, honest.root)
                .assertRefused("leaf hash flipped");
    }

    @Property(tries = 200)
    void inclusionWithTheRootBitFlippedIsRefused(@ForAll("inclusions") InclusionCase c, @ForAll Random random)
            throws Exception {
        Inclusion honest = Inclusion.of(c);
        new Inclusion(honest.index, honest.size, honest.leafHash, honest.proof, flip(honest.root, random))
                .assertRefused("root flipped");
    }

    @Property(tries = 200)
    void inclusionWithAnotherIndexVerifiesOnlyWhenTheReferenceSaysItIsTrue(@ForAll("inclusions") InclusionCase c,
            @ForAll Random random) throws Exception {
        Inclusion honest = Inclusion.of(c);
        long bit = 1L << random.nextInt(64 - Long.numberOfLeadingZeros(c.size()) + 1);
        for (long index : new long[] {c.index() + 1, c.index() - 1, c.index() ^ bit}) {
            new Inclusion(index, honest.size, honest.leafHash, honest.proof, honest.root)
                    .assertAsTheReferenceSays("index " + c.index() + " changed to " + index);
        }
    }

    /** Why the changed-size properties ask the reference: RFC 9162 lets some proofs verify under two sizes. */
    @Example
    void inclusionProofOfLeafZeroOfSixAlsoVerifiesAsLeafZeroOfSeven() throws Exception {
        RandomTree tree = new RandomTree(1, 6);
        List<byte[]> proof = Merkle.inclusionProof(0, 6, tree.source());
        byte[] root = tree.rootOf(6);

        assertThatCode(() -> Merkle.verifyInclusion(0, 7, tree.leafHashes.get(0), proof, root)).doesNotThrowAnyException();
        assertThat(Rfc9162Reference.verifiesInclusion(0, 7, tree.leafHashes.get(0), proof, root)).isTrue();
    }

    @Property(tries = 200)
    void inclusionWithAnotherSizeVerifiesOnlyWhenTheReferenceSaysItIsTrue(@ForAll("inclusions") InclusionCase c)
            throws Exception {
        Inclusion honest = Inclusion.of(c);
        for (long size : new long[] {c.size() + 1, c.size() - 1, c.size() * 2L, c.size() / 2}) {
            new Inclusion(honest.index, size, honest.leafHash, honest.proof, honest.root)
                    .assertAsTheReferenceSays("size " + c.size() + " changed to " + size);
        }
    }

    @Property(tries = 200)
    void inclusionWithAHashAddedOrRemovedIsRefused(@ForAll("inclusions") InclusionCase c, @ForAll Random random)
            throws Exception {
        Inclusion honest = Inclusion.of(c);
        byte[] extra = randomHash(random);
        List<byte[]> appended = new ArrayList<>(honest.proof);
        appended.add(extra);
        honest.withProof(appended).assertRefused("hash appended");
        List<byte[]> prepended = new ArrayList<>(honest.proof);
        prepended.add(0, extra);
        honest.withProof(prepended).assertRefused("hash prepended");
        for (int at = 0; at < honest.proof.size(); at++) {
            List<byte[]> removed = new ArrayList<>(honest.proof);
            removed.remove(at);
            honest.withProof(removed).assertRefused("hash " + at + " removed");
        }
    }

    // Changed consistency statements

    @Property(tries = 200)
    void consistencyWithAnyProofHashBitFlippedIsRefused(@ForAll("consistencies") ConsistencyCase c,
            @ForAll Random random) throws Exception {
        Consistency honest = Consistency.of(c);
        Assume.that(!honest.proof.isEmpty());
        for (int at = 0; at < honest.proof.size(); at++) {
            List<byte[]> changed = new ArrayList<>(honest.proof);
            changed.set(at, flip(changed.get(at), random));
            honest.withProof(changed).assertRefused("proof hash " + at + " flipped");
        }
    }

    @Property(tries = 200)
    void consistencyWithTheFirstRootBitFlippedIsRefused(@ForAll("consistencies") ConsistencyCase c,
            @ForAll Random random) throws Exception {
        Consistency honest = Consistency.of(c);
        new Consistency(honest.size1, honest.size2, honest.proof, flip(honest.root1, random), honest.root2)
                .assertRefused("first root flipped");
    }

    @Property(tries = 200)
    void consistencyWithTheSecondRootBitFlippedIsRefused(@ForAll("consistencies") ConsistencyCase c,
            @ForAll Random random) throws Exception {
        Consistency honest = Consistency.of(c);
        new Consistency(honest.size1, honest.size2, honest.proof, honest.root1, flip(honest.root2, random))
                .assertRefused("second root flipped");
    }

    @Property(tries = 200)
    void consistencyWithAnotherFirstSizeVerifiesOnlyWhenTheReferenceSaysItIsTrue(
            @ForAll("consistencies") ConsistencyCase c) throws Exception {
        Consistency honest = Consistency.of(c);
        for (long size1 : new long[] {c.size1() + 1, c.size1() - 1, c.size1() * 2L, c.size1() / 2}) {
            new Consistency(size1, honest.size2, honest.proof, honest.root1, honest.root2)
                    .assertAsTheReferenceSays("first size " + c.size1() + " changed to " + size1);
        }
    }

    @Property(tries = 200)
    void consistencyWithAnotherSecondSizeVerifiesOnlyWhenTheReferenceSaysItIsTrue(
            @ForAll("consistencies") ConsistencyCase c) throws Exception {
        Consistency honest = Consistency.of(c);
        for (long size2 : new long[] {c.size2() + 1, c.size2() - 1, c.size2() * 2L, c.size2() / 2}) {
            new Consistency(honest.size1, size2, honest.proof, honest.root1, honest.root2)
                    .assertAsTheReferenceSays("second size " + c.size2() + " changed to " + size2);
        }
    }

    @Property(tries = 200)
    void consistencyWithAHashAddedOrRemovedIsRefused(@ForAll("consistencies") ConsistencyCase c,
            @ForAll Random random) throws Exception {
        Consistency honest = Consistency.of(c);
        byte[] extra = randomHash(random);
        List<byte[]> appended = new ArrayList<>(honest.proof);
        appended.add(extra);
        honest.withProof(appended).assertRefused("hash appended");
        List<byte[]> prepended = new ArrayList<>(honest.proof);
        prepended.add(0, extra);
        honest.withProof(prepended).assertRefused("hash prepended");
        for (int at = 0; at < honest.proof.size(); at++) {
            List<byte[]> removed = new ArrayList<>(honest.proof);
            removed.remove(at);
            honest.withProof(removed).assertRefused("hash " + at + " removed");
        }
    }

    /** An inclusion statement: {@code leafHash} is leaf {@code index} of the tree of {@code size} with {@code root}. */
    private record Inclusion(long index, long size, byte[] leafHash, List<byte[]> proof, byte[] root) {
        /** The true statement of case {@code c}, checked to verify with both the library and the reference. */
        static Inclusion of(InclusionCase c) throws InvalidProofException {
            RandomTree tree = new RandomTree(c.seed(), c.size());
            Inclusion honest = new Inclusion(c.index(), c.size(), Merkle.leafHash(tree.leaves.get(c.index())),
                    Merkle.inclusionProof(c.index(), c.size(), tree.source()), tree.rootOf(c.size()));
            assertThat(honest.reference()).as("the reference accepts the honest proof").isTrue();
            Merkle.verifyInclusion(honest.index, honest.size, honest.leafHash, honest.proof, honest.root);
            return honest;
        }

        Inclusion withProof(List<byte[]> changed) {
            return new Inclusion(index, size, leafHash, changed, root);
        }

        boolean reference() {
            return Rfc9162Reference.verifiesInclusion(index, size, leafHash, proof, root);
        }

        void assertRefused(String change) {
            assertThatThrownBy(() -> Merkle.verifyInclusion(index, size, leafHash, proof, root))
                    .as(change).isInstanceOf(InvalidProofException.class);
        }

        void assertAsTheReferenceSays(String change) {
            assertThat(verifies(() -> Merkle.verifyInclusion(index, size, leafHash, proof, root)))
                    .as(change).isEqualTo(reference());
        }
    }

    /** A consistency statement: the tree of {@code size2} with {@code root2} extends that of {@code size1}. */
    private record Consistency(long size1, long size2, List<byte[]> proof, byte[] root1, byte[] root2) {
        /** The true statement of case {@code c}, checked to verify with both the library and the reference. */
        static Consistency of(ConsistencyCase c) throws InvalidProofException {
            RandomTree tree = new RandomTree(c.seed(), c.size2());
            Consistency honest = new Consistency(c.size1(), c.size2(),
                    Merkle.consistencyProof(c.size1(), c.size2(), tree.source()), tree.rootOf(c.size1()),
                    tree.rootOf(c.size2()));
            assertThat(honest.reference()).as("the reference accepts the honest proof").isTrue();
            Merkle.verifyConsistency(honest.size1, honest.size2, honest.proof, honest.root1, honest.root2);
            return honest;
        }

        Consistency withProof(List<byte[]> changed) {
            return new Consistency(size1, size2, changed, root1, root2);
        }

        boolean reference() {
            return Rfc9162Reference.verifiesConsistency(size1, size2, proof, root1, root2);
        }

        void assertRefused(String change) {
            assertThatThrownBy(() -> Merkle.verifyConsistency(size1, size2, proof, root1, root2))
                    .as(change).isInstanceOf(InvalidProofException.class);
        }

        void assertAsTheReferenceSays(String change) {
            assertThat(verifies(() -> Merkle.verifyConsistency(size1, size2, proof, root1, root2)))
                    .as(change).isEqualTo(reference());
        }
    }

    /** True when the check passes, false when it throws {@link InvalidProofException}; anything else is a bug. */
    private static boolean verifies(ThrowingCallable check) {
        try {
            check.call();
            return true;
        } catch (InvalidProofException e) {
            return false;
        } catch (Throwable t) {
            throw new AssertionError("the verifier threw " + t + " instead of InvalidProofException", t);
        }
    }

    private static byte[] flip(byte[] hash, Random random) {
        byte[] flipped = hash.clone();
        int bit = random.nextInt(hash.length * 8);
        flipped[bit / 8] ^= (byte) (1 << (bit % 8));
        return flipped;
    }

    private static byte[] randomHash(Random random) {
        byte[] hash = new byte[Merkle.HASH_SIZE];
        random.nextBytes(hash);
        return hash;
    }
}
