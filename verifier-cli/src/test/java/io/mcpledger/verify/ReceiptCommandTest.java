package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.log.TlogProof;
import io.mcpledger.domain.receipt.Canonical;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-verify receipt}: a bare receipt, a GET /v1/receipts/{id} answer, a tlog-proof; good and bad. */
class ReceiptCommandTest {
    @TempDir
    Path dir;
    Path key;

    @BeforeEach
    void key() throws Exception {
        key = Files.writeString(dir.resolve("key.pem"), TestLog.publicPem());
    }

    private static String line(int index) {
        return TestLog.vectorLines().get(index);
    }

    private static List<String> hashes(int index) {
        List<String> hashes = new ArrayList<>();
        TestLog.VECTORS.path("inclusion").get(index).path("hashesB64").forEach(h -> hashes.add(h.asText()));
        return hashes;
    }

    /** The GET /v1/receipts/{id} answer for vector entry index. */
    private static ObjectNode answer(int index) throws Exception {
        ObjectNode answer = Canonical.JSON.createObjectNode();
        answer.set("receipt", Canonical.parse(line(index)));
        answer.put("index", index);
        ObjectNode inclusion = answer.putObject("inclusion");
        inclusion.put("treeSize", 6);
        ArrayNode hashes = inclusion.putArray("hashes");
        hashes(index).forEach(hashes::add);
        answer.put("checkpoint", TestLog.vectorCheckpoint());
        return answer;
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void aBareReceiptVerifiesItsSignature() throws Exception {
        Run run = Run.of("receipt", write("r.json", line(2) + "\n"), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.OK);
        assertThat(run.out()).startsWith("VALID: receipt rcpt-test-0002-call.admitted (call.admitted, session "
                + TestLog.SESSION + " seq 2) of the log ledger.example/test")
                .contains("no proof given: only the signature was checked");
    }

    @Test
    void aPrettyPrintedReceiptIsReadInItsCanonicalForm() throws Exception {
        String pretty = Canonical.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(Canonical.parse(line(1)));
        assertThat(Run.of("receipt", write("r.json", pretty), "--key", key).exit()).isEqualTo(Exit.OK);
    }

    @Test
    void anAnswerWithItsInclusionProofVerifiesEveryVectorEntry() throws Exception {
        for (int i = 0; i < 6; i++) {
            Run run = Run.of("receipt", write("a.json", answer(i).toString()), "--key", key);
            assertThat(run.exit()).as("entry %d", i).isEqualTo(Exit.OK);
            assertThat(run.out()).contains("inclusion   entry " + i + " of the tree of size 6");
        }
    }

    @Test
    void aTlogProofFileVerifies() throws Exception {
        List<byte[]> hashes = hashes(3).stream().map(Base64.getDecoder()::decode).toList();
        Path proof = write("p.txt", new TlogProof(3, hashes, TestLog.vectorCheckpoint()).format());
        Run run = Run.of("receipt", write("r.json", line(3)), "--proof", proof, "--vkey", TestLog.vkey(), "--json");
        assertThat(run.exit()).isEqualTo(Exit.OK);
        JsonNode json = Canonical.parse(run.out());
        assertThat(json.path("included").asBoolean()).isTrue();
        assertThat(json.path("index").asLong()).isEqualTo(3);
        assertThat(json.path("treeSize").asLong()).isEqualTo(6);
    }

    @Test
    void aChangedReceiptIsInvalid() throws Exception {
        Run run = Run.of("receipt", write("r.json", line(2).replace("\"quote\"", "\"quota\"")), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("the signature of receipt rcpt-test-0002-call.admitted does not verify");
    }

    @Test
    void theWrongKeyIsInvalid() throws Exception {
        Path other = Files.writeString(dir.resolve("other.pem"),
                io.mcpledger.domain.crypto.Ed25519Pem.publicKeyPem(TestLog.OTHER_KEY.publicKey().raw()));
        Run run = Run.of("receipt", write("r.json", line(2)), "--key", other);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("carries keyId adf8fba0, but the key's is");
    }

    @Test
    void aProofForAnotherEntryIsInvalid() throws Exception {
        ObjectNode answer = answer(2);
        answer.put("index", 3);
        Run run = Run.of("receipt", write("a.json", answer.toString()), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("is not entry 3 of the checkpoint's tree");
    }

    @Test
    void aChangedProofHashIsInvalid() throws Exception {
        ObjectNode answer = answer(4);
        ((ArrayNode) answer.path("inclusion").path("hashes")).set(0, Base64.getEncoder().encodeToString(new byte[32]));
        assertThat(Run.of("receipt", write("a.json", answer.toString()), "--key", key).exit())
                .isEqualTo(Exit.INVALID);
    }

    @Test
    void aTreeSizeThatIsNotTheCheckpointsIsInvalid() throws Exception {
        ObjectNode answer = answer(4);
        ((ObjectNode) answer.path("inclusion")).put("treeSize", 7);
        Run run = Run.of("receipt", write("a.json", answer.toString()), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("the inclusion proof is for a tree of size 7, but the checkpoint's size is 6");
    }

    @Test
    void aForgedCheckpointIsInvalid() throws Exception {
        ObjectNode answer = answer(4);
        answer.put("checkpoint", TestLog.vectorCheckpoint().replace("\n6\n", "\n7\n"));
        Run run = Run.of("receipt", write("a.json", answer.toString()), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("its checkpoint does not verify");
    }

    @Test
    void garbageIsInvalidNotACrash() throws Exception {
        assertThat(Run.of("receipt", write("r.json", "not json"), "--key", key).exit()).isEqualTo(Exit.INVALID);
        assertThat(Run.of("receipt", write("r.json", "[1]"), "--key", key).exit()).isEqualTo(Exit.INVALID);
        assertThat(Run.of("receipt", write("r.json", "{\"v\":1}"), "--key", key).out())
                .contains("not a valid receipt");
        Path badProof = write("p.txt", "c2sp.org/tlog-proof@v1\nindex x\n");
        assertThat(Run.of("receipt", write("r.json", line(1)), "--proof", badProof, "--key", key).out())
                .contains("not a tlog-proof");
    }

    @Test
    void ambiguousJsonIsInvalid() throws Exception {
        // A second value after the receipt, or a member named twice, could be read more than one way.
        Run trailing = Run.of("receipt", write("r.json", line(2) + "{\"kind\":\"call.refused\"}"), "--key", key);
        assertThat(trailing.exit()).isEqualTo(Exit.INVALID);
        assertThat(trailing.out()).contains("not one JSON value");
        String twice = "{\"kind\":\"call.refused\"," + line(2).substring(1);
        assertThat(Run.of("receipt", write("r.json", twice), "--key", key).out()).contains("Duplicate field 'kind'");
        String answerTwice = "{\"receipt\":{\"id\":\"forged\"},\"receipt\":" + line(2) + "}";
        assertThat(Run.of("receipt", write("a.json", answerTwice), "--key", key).exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void anotherSpellingOfTheSameSignatureIsInvalid() throws Exception {
        // The last base64 character before "==" has four unused bits: flipping one decodes to the same signature.
        String genuine = line(2);
        int end = genuine.indexOf("==\",\"v\":1}");
        char last = genuine.charAt(end - 1);
        String malleated = genuine.substring(0, end - 1) + (char) (last ^ 1) + genuine.substring(end);
        Run run = Run.of("receipt", write("r.json", malleated), "--key", key);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).contains("'sig' is not padded standard base64 in its one canonical spelling");
    }

    @Test
    void withoutAKeyOrAFileItIsAUsageError() throws Exception {
        Run noKey = Run.of("receipt", write("r.json", line(1)));
        assertThat(noKey.exit()).isEqualTo(Exit.USAGE);
        assertThat(noKey.err()).isEqualTo("ledger-verify receipt: no key: give --key PEM or --vkey STR (there is no"
                + " bundle to take one from)\n");
        Run noFile = Run.of("receipt", dir.resolve("missing.json"), "--key", key);
        assertThat(noFile.exit()).isEqualTo(Exit.USAGE);
        assertThat(noFile.err()).contains("cannot read receipt file").contains("no such file");
        Run noProof = Run.of("receipt", write("r.json", line(1)), "--proof", dir.resolve("nope"), "--key", key);
        assertThat(noProof.exit()).isEqualTo(Exit.USAGE);
    }
}
