package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checkpoint, proofs and C2SP example of the contract's ledger-vectors.json, reproduced byte for byte. */
class LedgerLogVectorsTest {
    private static final Base64.Decoder B64 = Base64.getDecoder();
    private static final Base64.Encoder ENC = Base64.getEncoder();

    private final SigningKey key = SigningKey.fromSeed(LedgerVectors.seed());
    private final JsonNode checkpoint = LedgerVectors.section("checkpoint");

    /** Every complete subtree of the vector log, as the ledger's tree storage would hold them. */
    private final Map<String, byte[]> nodes = new HashMap<>();
    private final CompactRange tree = CompactRange.empty();

    LedgerLogVectorsTest() {
        for (JsonNode receipt : LedgerVectors.receipts()) {
            tree.append(Merkle.leafHash(receipt.get("jcs").asText().getBytes(StandardCharsets.UTF_8)),
                    (level, index, hash) -> nodes.put(level + "/" + index, hash));
        }
    }

    private byte[] node(int level, long index) {
        byte[] hash = nodes.get(level + "/" + index);
        assertThat(hash).as("node %d/%d", level, index).isNotNull();
        return hash;
    }

    @Test
    void leafHashesAreTheVectors() {
        for (JsonNode receipt : LedgerVectors.receipts()) {
            byte[] leaf = receipt.get("jcs").asText().getBytes(StandardCharsets.UTF_8);
            assertThat(ENC.encodeToString(Merkle.leafHash(leaf))).isEqualTo(receipt.get("leafHashB64").asText());
        }
    }

    @Test
    void rootAndSizeAreTheCheckpoints() {
        assertThat(tree.size()).isEqualTo(checkpoint.get("treeSize").asLong());
        assertThat(ENC.encodeToString(tree.root())).isEqualTo(checkpoint.get("rootB64").asText());
        assertThat(ENC.encodeToString(Merkle.root(tree.size(), this::node))).isEqualTo(checkpoint.get("rootB64").asText());
    }

    @Test
    void signedCheckpointIsTheVectorByteForByte() {
        Checkpoint ours = new Checkpoint(LedgerVectors.origin(), tree.size(), tree.root());
        assertThat(ours.sign(key)).isEqualTo(checkpoint.get("text").asText());
    }

    @Test
    void vectorCheckpointOpensWithTheVerifierKey() throws Exception {
        VerifierKey vkey = VerifierKey.parse(LedgerVectors.key().get("vkey").asText());
        Checkpoint opened = Checkpoint.open(checkpoint.get("text").asText(), vkey);
        assertThat(opened).isEqualTo(new Checkpoint(LedgerVectors.origin(), 6, B64.decode(checkpoint.get("rootB64").asText())));
        assertThat(vkey.encode()).isEqualTo(LedgerVectors.key().get("vkey").asText());
    }

    @Test
    void inclusionProofsAreTheVectorsAndVerify() throws Exception {
        byte[] root = tree.root();
        List<JsonNode> receipts = LedgerVectors.receipts();
        for (JsonNode vector : LedgerVectors.section("inclusion")) {
            long index = vector.get("index").asLong();
            long size = vector.get("treeSize").asLong();
            List<String> ours = Merkle.inclusionProof(index, size, this::node).stream().map(ENC::encodeToString).toList();
            assertThat(ours).as("proof of %d", index).isEqualTo(texts(vector.get("hashesB64")));
            byte[] leafHash = B64.decode(receipts.get((int) index).get("leafHashB64").asText());
            Merkle.verifyInclusion(index, size, leafHash, hashes(vector.get("hashesB64")), root);
        }
    }

    @Test
    void consistencyProofsAreTheVectorsAndVerify() throws Exception {
        byte[] root = tree.root();
        for (JsonNode vector : LedgerVectors.section("consistency")) {
            long from = vector.get("from").asLong();
            long to = vector.get("to").asLong();
            List<String> ours = Merkle.consistencyProof(from, to, this::node).stream().map(ENC::encodeToString).toList();
            assertThat(ours).as("proof %d..%d", from, to).isEqualTo(texts(vector.get("hashesB64")));
            byte[] fromRoot = B64.decode(vector.get("fromRootB64").asText());
            assertThat(Merkle.root(from, this::node)).isEqualTo(fromRoot);
            Merkle.verifyConsistency(from, to, hashes(vector.get("hashesB64")), fromRoot, root);
        }
    }

    @Test
    void c2spExampleNoteOpensWithItsKey() throws Exception {
        JsonNode example = LedgerVectors.section("c2spExample");
        VerifierKey vkey = VerifierKey.parse(example.get("vkey").asText());
        assertThat(SignedNote.open(example.get("note").asText(), vkey)).isEqualTo(example.get("text").asText());
    }

    @Test
    void c2spExampleNoteWithOneChangedCharacterIsRefused() throws Exception {
        JsonNode example = LedgerVectors.section("c2spExample");
        VerifierKey vkey = VerifierKey.parse(example.get("vkey").asText());
        String changed = example.get("note").asText().replace("example message", "example massage");
        assertThatThrownBy(() -> SignedNote.open(changed, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageContaining("does not verify");
    }

    @Test
    void checkpointSignedByAnotherKeyIsRefused() throws Exception {
        VerifierKey other = VerifierKey.of(LedgerVectors.origin(),
                VerifyingKey.fromRaw(SigningKey.fromSeed(new byte[32]).publicKey().raw()));
        assertThatThrownBy(() -> Checkpoint.open(checkpoint.get("text").asText(), other))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageContaining("no signature by " + LedgerVectors.origin());
    }

    @Test
    void tlogProofRoundTrips() throws Exception {
        List<byte[]> proof = hashes(LedgerVectors.section("inclusion").get(2).get("hashesB64"));
        TlogProof written = new TlogProof(2, proof, checkpoint.get("text").asText());
        String text = written.format();
        assertThat(text).startsWith("c2sp.org/tlog-proof@v1\nindex 2\n" + ENC.encodeToString(proof.get(0)) + "\n")
                .endsWith("\n\n" + checkpoint.get("text").asText());
        TlogProof read = TlogProof.parse(text);
        assertThat(read.index()).isEqualTo(2);
        assertThat(read.hashes()).usingElementComparator(java.util.Arrays::compare).containsExactlyElementsOf(proof);
        assertThat(read.checkpoint()).isEqualTo(checkpoint.get("text").asText());
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }

    private static List<byte[]> hashes(JsonNode array) {
        return texts(array).stream().map(B64::decode).toList();
    }
}
