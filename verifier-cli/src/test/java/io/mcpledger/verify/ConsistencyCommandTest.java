package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.receipt.Canonical;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-verify consistency OLD NEW PROOF}, with the vectors' proofs and checkpoints signed for them. */
class ConsistencyCommandTest {
    @TempDir
    Path dir;
    Path key;
    Path latest;

    @BeforeEach
    void files() throws Exception {
        key = Files.writeString(dir.resolve("key.pem"), TestLog.publicPem());
        latest = Files.writeString(dir.resolve("new"), TestLog.vectorCheckpoint());
    }

    private static JsonNode vector(int from) {
        for (JsonNode v : TestLog.VECTORS.path("consistency")) {
            if (v.path("from").asInt() == from) {
                return v;
            }
        }
        throw new IllegalArgumentException("no consistency vector from " + from);
    }

    private Path older(int size) throws Exception {
        byte[] root = Base64.getDecoder().decode(vector(size).path("fromRootB64").asText());
        return Files.writeString(dir.resolve("old-" + size), new Checkpoint(TestLog.ORIGIN, size, root).sign(TestLog.KEY));
    }

    private Path proof(int from, JsonNode hashes) throws Exception {
        ObjectNode proof = Canonical.JSON.createObjectNode();
        proof.put("from", from);
        proof.put("to", 6);
        proof.set("hashes", hashes);
        return Files.writeString(dir.resolve("proof-" + from + ".json"), proof.toString());
    }

    private Path proof(int from) throws Exception {
        return proof(from, vector(from).path("hashesB64"));
    }

    @Test
    void everyVectorProofShowsTheLogOnlyGrew() throws Exception {
        for (JsonNode v : TestLog.VECTORS.path("consistency")) {
            int from = v.path("from").asInt();
            Run run = Run.of("consistency", older(from), latest, proof(from), "--key", key);
            assertThat(run.exit()).as("from %d", from).isEqualTo(Exit.OK);
            assertThat(run.out()).startsWith("VALID: the log ledger.example/test only grew, from size " + from
                    + " to 6");
        }
    }

    @Test
    void jsonAndVerifierKeysWork() throws Exception {
        Run run = Run.of("consistency", older(2), latest, proof(2), "--vkey", TestLog.vkey(), "--json");
        assertThat(run.exit()).isEqualTo(Exit.OK);
        JsonNode json = Canonical.parse(run.out());
        assertThat(json.path("from").asLong()).isEqualTo(2);
        assertThat(json.path("to").asLong()).isEqualTo(6);
    }

    @Test
    void aChangedHashIsInvalid() throws Exception {
        JsonNode hashes = vector(3).path("hashesB64").deepCopy();
        ((com.fasterxml.jackson.databind.node.ArrayNode) hashes).set(0,
                Base64.getEncoder().encodeToString(new byte[32]));
        Run run = Run.of("consistency", older(3), latest, proof(3, hashes), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("the consistency proof does not hold");
    }

    @Test
    void anOldCheckpointWithAnotherRootIsInvalid() throws Exception {
        Path forkOld = Files.writeString(dir.resolve("fork"),
                new Checkpoint(TestLog.ORIGIN, 3, new byte[32]).sign(TestLog.KEY));
        Run run = Run.of("consistency", forkOld, latest, proof(3), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void sizesThatAreNotTheProofsAreInvalid() throws Exception {
        Run run = Run.of("consistency", older(2), latest, proof(3), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("the proof is from size 3 to 6, but the checkpoints are of sizes 2 and 6");
    }

    @Test
    void swappedCheckpointsAreInvalid() throws Exception {
        Run run = Run.of("consistency", latest, older(2), proof(2), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void aForgedOrForeignCheckpointIsInvalid() throws Exception {
        Path forged = Files.writeString(dir.resolve("forged"), TestLog.vectorCheckpoint().replace("\n6\n", "\n9\n"));
        Run run = Run.of("consistency", older(2), forged, proof(2), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("the checkpoint does not verify");
        byte[] root = Base64.getDecoder().decode(vector(2).path("fromRootB64").asText());
        Path foreign = Files.writeString(dir.resolve("foreign"),
                new Checkpoint(TestLog.ORIGIN, 2, root).sign(TestLog.OTHER_KEY));
        assertThat(Run.of("consistency", foreign, latest, proof(2), "--key", key).exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void theEmptyTreeIsExtendedByEveryTree() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty"),
                new Checkpoint(TestLog.ORIGIN, 0, Merkle.emptyRoot()).sign(TestLog.KEY));
        Path proof = proof(0, Canonical.JSON.createArrayNode());
        assertThat(Run.of("consistency", empty, latest, proof, "--key", key).exit()).isEqualTo(Exit.OK);
    }

    @Test
    void malformedProofsAreInvalid() throws Exception {
        Path notJson = Files.writeString(dir.resolve("p1"), "from=2");
        assertThat(Run.of("consistency", older(2), latest, notJson, "--key", key).out()).contains("not one JSON value");
        Path twice = Files.writeString(dir.resolve("p4"), "{\"from\":2,\"to\":6,\"hashes\":[],\"from\":3}");
        assertThat(Run.of("consistency", older(2), latest, twice, "--key", key).out()).contains("Duplicate field 'from'");
        Path binary = Files.write(dir.resolve("old-binary"), new byte[] {(byte) 0xff, 0x0a});
        Run notText = Run.of("consistency", binary, latest, proof(2), "--key", key);
        assertThat(notText.exit()).isEqualTo(Exit.INVALID);
        assertThat(notText.out()).contains("not UTF-8 text");
        Path extra = Files.writeString(dir.resolve("p2"), "{\"from\":2,\"to\":6,\"hashes\":[],\"x\":1}");
        assertThat(Run.of("consistency", older(2), latest, extra, "--key", key).out()).contains("unknown field 'x'");
        Path badHash = Files.writeString(dir.resolve("p3"), "{\"from\":2,\"to\":6,\"hashes\":[\"abc\"]}");
        assertThat(Run.of("consistency", older(2), latest, badHash, "--key", key).exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void missingFilesOrKeyAreUsageErrors() throws Exception {
        assertThat(Run.of("consistency", older(2), latest, proof(2)).exit()).isEqualTo(Exit.USAGE);
        Run missing = Run.of("consistency", dir.resolve("nope"), latest, proof(2), "--key", key);
        assertThat(missing.exit()).isEqualTo(Exit.USAGE);
        assertThat(missing.err()).contains("cannot read checkpoint").contains("no such file");
        assertThat(Run.of("consistency", older(2), latest).exit()).isEqualTo(Exit.USAGE);
        // A file that cannot be read is a usage error even when another file is already invalid.
        Path garbage = Files.writeString(dir.resolve("garbage"), "not a checkpoint\n");
        Run unread = Run.of("consistency", garbage, latest, dir.resolve("no-proof.json"), "--key", key);
        assertThat(unread.exit()).isEqualTo(Exit.USAGE);
        assertThat(unread.err()).contains("cannot read proof file");
    }
}
