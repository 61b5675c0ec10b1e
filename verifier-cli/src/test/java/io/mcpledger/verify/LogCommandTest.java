package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-verify log}: the vectors' bundle verifies, and every kind of tampering is named at its first line. */
class LogCommandTest {
    @TempDir
    Path dir;

    private Path bundle(List<String> lines) {
        return TestLog.write(dir.resolve("bundle"), lines, TestLog.vectorCheckpoint());
    }

    private static List<String> vectors() {
        return new ArrayList<>(TestLog.vectorLines());
    }

    private static Run log(Path bundle, Object... more) {
        List<Object> args = new ArrayList<>(List.of("log", bundle, "--key", bundle.resolve("key.pem")));
        args.addAll(List.of(more));
        return Run.of(args.toArray());
    }

    @Test
    void theVectorsBundleIsValid() {
        Run run = log(bundle(vectors()));
        assertThat(run.exit()).isEqualTo(Exit.OK);
        assertThat(run.out()).startsWith("VALID: 6 entries of the log ledger.example/test")
                .contains("size 6, root dpA0y59wbYIsRNAEpQFrDpCfGeayzOJUYd59p26kw7E=");
        assertThat(run.err()).isEmpty();
    }

    @Test
    void withoutAKeyItUsesTheBundlesOwnAndSaysSo() {
        Path bundle = bundle(vectors());
        Run run = Run.of("log", bundle);
        assertThat(run.exit()).isEqualTo(Exit.OK);
        assertThat(run.err()).contains("no --key or --vkey given, so the bundle's own public-key.pem is used");
        assertThat(run.out()).contains("key         the bundle's own public-key.pem");
    }

    @Test
    void aVerifierKeyWorksLikeThePem() {
        Path bundle = bundle(vectors());
        assertThat(Run.of("log", bundle, "--vkey", TestLog.vkey()).exit()).isEqualTo(Exit.OK);
    }

    @Test
    void jsonAnswersForScripts() throws Exception {
        Run run = log(bundle(vectors()), "--json");
        JsonNode answer = Canonical.parse(run.out());
        assertThat(answer.path("valid").asBoolean()).isTrue();
        assertThat(answer.path("treeSize").asLong()).isEqualTo(6);
        assertThat(answer.path("root").asText()).isEqualTo("dpA0y59wbYIsRNAEpQFrDpCfGeayzOJUYd59p26kw7E=");
        assertThat(answer.path("sessions").asLong()).isEqualTo(1);
    }

    @Test
    void aChangedByteIsNamedByLineAndReason() throws Exception {
        Path bundle = bundle(vectors());
        byte[] entries = Files.readAllBytes(bundle.resolve(Bundles.ENTRIES));
        String text = new String(entries, StandardCharsets.UTF_8);
        int at = text.indexOf("mcp-edge-req-2") + 4; // inside line 5's request id
        entries[at] = (byte) 'X';
        Files.write(bundle.resolve(Bundles.ENTRIES), entries);

        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).isEqualTo("INVALID: entries.jsonl line 5 (entry 4): the signature of receipt"
                + " rcpt-test-0004-call.refused does not verify: the line was changed after signing\n");
        JsonNode json = Canonical.parse(log(bundle, "--json").out());
        assertThat(json.path("valid").asBoolean()).isFalse();
        assertThat(json.path("line").asLong()).isEqualTo(5);
        assertThat(json.path("entry").asLong()).isEqualTo(4);
    }

    @Test
    void everyChangedByteOfEveryFileIsDetectedAndItsLineNamed() throws Exception {
        Path bundle = TestLog.write(dir.resolve("bundle"), vectors(), TestLog.vectorCheckpoint());
        Files.writeString(bundle.resolve("key.pem"), TestLog.publicPem());
        for (String file : List.of(Bundles.ENTRIES, Bundles.CHECKPOINT, Bundles.PUBLIC_KEY, Bundles.VKEY)) {
            byte[] original = Files.readAllBytes(bundle.resolve(file));
            for (int i = 0; i < original.length; i++) {
                byte[] changed = original.clone();
                changed[i] = (byte) (changed[i] ^ (i % 2 == 0 ? 0x01 : 0x20));
                Files.write(bundle.resolve(file), changed);
                // Without --key the bundle's own public-key.pem is the key, so its bytes are tested that way too.
                Run run = file.equals(Bundles.PUBLIC_KEY) ? Run.of("log", bundle, "--threads", 1)
                        : log(bundle, "--threads", 1);
                assertThat(run.exit()).as("%s byte %d: %s", file, i, run.out()).isEqualTo(Exit.INVALID);
                if (file.equals(Bundles.ENTRIES)) {
                    long line = 1 + new String(original, 0, i, StandardCharsets.UTF_8).chars().filter(c -> c == '\n')
                            .count();
                    assertThat(run.out()).as("entries byte %d", i).startsWith("INVALID: entries.jsonl line " + line + " ");
                } else if (file.equals(Bundles.PUBLIC_KEY)) {
                    // Either the file is refused as it stands, or the key it now holds does not sign the checkpoint.
                    assertThat(run.out()).as("%s byte %d", file, i).matches("(?s)INVALID: (public-key.pem|checkpoint): .*");
                } else {
                    assertThat(run.out()).as("%s byte %d", file, i).startsWith("INVALID: " + file + ": ");
                }
            }
            Files.write(bundle.resolve(file), original);
        }
        assertThat(log(bundle).exit()).isEqualTo(Exit.OK);
    }

    @Test
    void anotherSpellingOfASignatureIsNamedOnItsOwnLine() throws Exception {
        // Java's base64 decoder ignores the last character's unused bits; the line's bytes (and so the next prev and
        // the root) would change while the signature still verified, and the next line would take the blame.
        List<String> lines = vectors();
        String genuine = lines.get(2);
        int end = genuine.indexOf("==\",\"v\":1}");
        lines.set(2, genuine.substring(0, end - 1) + (char) (genuine.charAt(end - 1) ^ 1) + genuine.substring(end));
        Run run = log(bundle(lines));
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 3 (entry 2): not a valid receipt: 'sig' is not"
                + " padded standard base64 in its one canonical spelling");
    }

    @Test
    void aNonUtf8CheckpointIsInvalidNotAUsageError() throws Exception {
        Path bundle = bundle(vectors());
        byte[] checkpoint = Files.readAllBytes(bundle.resolve(Bundles.CHECKPOINT));
        checkpoint[checkpoint.length - 90] = (byte) 0xff;
        Files.write(bundle.resolve(Bundles.CHECKPOINT), checkpoint);
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).isEqualTo("INVALID: checkpoint: not UTF-8 text\n");
    }

    @Test
    void theBundlesKeyFilesMustBeTheKeyGiven() throws Exception {
        Path bundle = bundle(vectors());
        Files.writeString(bundle.resolve(Bundles.PUBLIC_KEY), Files.readString(bundle.resolve("other-key.pem")));
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: public-key.pem: is not the key given");

        Path second = TestLog.write(dir.resolve("second"), vectors(), TestLog.vectorCheckpoint());
        Files.writeString(second.resolve(Bundles.VKEY), "ledger.example/other+00000000+AAAA\n");
        assertThat(log(second).out()).startsWith("INVALID: vkey: is not the verifier key of the log");
        Files.writeString(second.resolve(Bundles.VKEY), TestLog.vkey());
        assertThat(log(second).exit()).as("a vkey without its final newline").isEqualTo(Exit.OK);
    }

    @Test
    void aDroppedLineBreaksItsSessionChain() {
        List<String> lines = vectors();
        lines.remove(2); // seq 2 of the session
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 3 (entry 2): session " + TestLog.SESSION
                + " jumps from seq 1 (line 2) to seq 3: seq 2 is missing here (dropped, or moved later)");
    }

    @Test
    void aDroppedLedgerWideLineShowsAsAMissingEntry() {
        List<String> lines = vectors();
        lines.remove(0); // policy.activated: no chain to break
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 6 (entry 5): missing: the checkpoint covers 6"
                + " entries but the file ends after 5 lines");
    }

    @Test
    void aDuplicatedLineIsNamed() {
        List<String> lines = vectors();
        lines.add(2, lines.get(0));
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 3 (entry 2): receipt id"
                + " rcpt-test-0000-policy.activated already appears on line 1");
    }

    @Test
    void swappedLinesOfOneSessionBreakItsChain() {
        List<String> lines = vectors();
        Collections.swap(lines, 2, 3);
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 3 (entry 2): session " + TestLog.SESSION
                + " jumps from seq 1 (line 2) to seq 3");
    }

    @Test
    void swappedLinesThatKeepEveryChainDisagreeWithTheCheckpointRoot() {
        List<String> lines = vectors();
        Collections.swap(lines, 0, 1); // the policy and the session's first receipt
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl: the Merkle root of the first 6 lines is not the"
                + " checkpoint's");
    }

    @Test
    void aTailCutMidLineIsNamed() throws Exception {
        Path bundle = bundle(vectors());
        byte[] entries = Files.readAllBytes(bundle.resolve(Bundles.ENTRIES));
        Files.write(bundle.resolve(Bundles.ENTRIES), java.util.Arrays.copyOf(entries, entries.length - 40));
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 6 (entry 5): not a valid receipt: not JSON")
                .contains("(the last line has no newline at its end: the file looks truncated)");
    }

    @Test
    void aMissingFinalNewlineIsATruncation() throws Exception {
        Path bundle = bundle(vectors());
        byte[] entries = Files.readAllBytes(bundle.resolve(Bundles.ENTRIES));
        Files.write(bundle.resolve(Bundles.ENTRIES), java.util.Arrays.copyOf(entries, entries.length - 1));
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).isEqualTo("INVALID: entries.jsonl line 6 (entry 5): the line has no newline at its"
                + " end: the file is truncated\n");
    }

    @Test
    void droppedTailLinesAreMissingEntries() {
        Run run = log(bundle(vectors().subList(0, 4)));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 5 (entry 4): missing: the checkpoint covers 6"
                + " entries but the file ends after 4 lines");
    }

    @Test
    void aWrongKeyFailsAtTheCheckpoint() {
        Path bundle = bundle(vectors());
        Run run = Run.of("log", bundle, "--key", bundle.resolve("other-key.pem"));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: checkpoint: does not verify: the note carries no signature by"
                + " ledger.example/test+");
    }

    @Test
    void aVerifierKeyForAnotherLogFailsAtTheCheckpoint() {
        Path bundle = bundle(vectors());
        String other = io.mcpledger.domain.crypto.LogKeys.verifierKey("ledger.example/other",
                TestLog.KEY.publicKey().raw());
        Run run = Run.of("log", bundle, "--vkey", other);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: checkpoint: does not verify:");
    }

    @Test
    void aLogSignedByAnotherKeyFailsAtItsFirstLine() {
        List<String> lines = new TestLog(TestLog.OTHER_KEY).policy().initialize("s-1", "1").lines();
        // The checkpoint is genuine (signed with the right key) but the lines are not the ledger's.
        Path bundle = TestLog.write(dir.resolve("bundle"), lines, TestLog.checkpoint(lines, lines.size(), TestLog.KEY));
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 1 (entry 0): receipt rcpt-t-0 carries keyId ");
    }

    @Test
    void aForgedCheckpointIsRefused() {
        String genuine = TestLog.vectorCheckpoint();
        String forged = genuine.replace("\n6\n", "\n5\n");
        Run run = log(TestLog.write(dir.resolve("bundle"), vectors(), forged));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: checkpoint: does not verify: the signature of 'ledger.example/test'"
                + " does not verify");
    }

    @Test
    void aStaleCheckpointLeavesLaterLinesUncovered() {
        List<String> lines = vectors();
        Run run = log(TestLog.write(dir.resolve("bundle"), lines, TestLog.checkpoint(lines, 4, TestLog.KEY)));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 5 (entry 4): not covered by the checkpoint,"
                + " which is for the first 4 lines only: the checkpoint is stale, or lines were appended after it");
    }

    @Test
    void aStaleCheckpointIsNamedBeforeALaterBadLine() {
        List<String> lines = vectors();
        lines.set(5, lines.get(5).replace("\"body\":{}", "\"body\":{\"x\":1}"));
        Run run = log(TestLog.write(dir.resolve("bundle"), lines, TestLog.checkpoint(lines, 4, TestLog.KEY)));
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 5 (entry 4): not covered by the checkpoint");
    }

    @Test
    void aRootThatDoesNotMatchIsNamedBeforeLinesBeyondTheCheckpoint() {
        List<String> genuine = vectors();
        List<String> lines = vectors();
        Collections.swap(lines, 0, 1);
        lines.set(5, lines.get(5).replace("\"body\":{}", "\"body\":{\"x\":1}"));
        Run run = log(TestLog.write(dir.resolve("bundle"), lines, TestLog.checkpoint(genuine, 4, TestLog.KEY)));
        assertThat(run.out()).startsWith("INVALID: entries.jsonl: the Merkle root of the first 4 lines is not the"
                + " checkpoint's");
    }

    @Test
    void aBrokenPrevChainIsNamedEvenWhenReSigned() throws Exception {
        // A key holder rewrites seq 3 to point at another hash and signs it again: the signature holds, the chain
        // does not.
        List<String> lines = vectors();
        Receipt genuine = Receipt.parse(lines.get(3));
        ReceiptDraft draft = new ReceiptDraft(genuine.id(), genuine.kind(), genuine.at(), genuine.session(),
                genuine.seq(), "00".repeat(32), genuine.request(), (com.fasterxml.jackson.databind.node.ObjectNode)
                genuine.body());
        lines.set(3, new ReceiptSigner(TestLog.KEY, TestLog.ORIGIN).sign(draft).line());
        Run run = log(TestLog.write(dir.resolve("bundle"), lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 4 (entry 3): session " + TestLog.SESSION
                + " seq 3: prev " + "00".repeat(32) + " is not the hash of seq 2 (line 3)");
    }

    @Test
    void nonCanonicalLinesAreRefusedEvenThoughTheyParse() throws Exception {
        List<String> lines = vectors();
        lines.set(0, lines.get(0).replace("{\"at\"", "{ \"at\""));
        Run run = log(bundle(lines));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 1 (entry 0): not a valid receipt: not in"
                + " canonical (RFC 8785) form");
    }

    @Test
    void emptyLinesAndBadUtf8AreNamed() throws Exception {
        List<String> lines = vectors();
        lines.add(1, "");
        assertThat(log(bundle(lines)).out()).startsWith("INVALID: entries.jsonl line 2 (entry 1): the line is empty");

        Path bundle = bundle(vectors());
        byte[] entries = Files.readAllBytes(bundle.resolve(Bundles.ENTRIES));
        entries[10] = (byte) 0xC3; // a lead byte followed by ASCII
        Files.write(bundle.resolve(Bundles.ENTRIES), entries);
        assertThat(log(bundle).out()).startsWith("INVALID: entries.jsonl line 1 (entry 0): not UTF-8");
    }

    @Test
    void anEmptyLogVerifiesAgainstAnEmptyCheckpoint() {
        Path bundle = TestLog.write(dir.resolve("bundle"), List.of(), TestLog.checkpoint(List.of(), 0, TestLog.KEY));
        Run run = log(bundle);
        assertThat(run.exit()).isEqualTo(Exit.OK);
        assertThat(run.out()).startsWith("VALID: 0 entries");
    }

    @Test
    void aLongLogVerifiesWithOneOrManyThreadsAlike() {
        TestLog log = new TestLog().policy();
        for (int s = 0; s < 40; s++) {
            log.initialize("s-" + s, "1");
        }
        for (int i = 0; i < 1200; i++) {
            String session = "s-" + (i % 40);
            log.admit(session, "r-" + i, "ab".repeat(32)).outcome(session, "r-" + i, "ok");
        }
        List<String> lines = log.lines();
        Path bundle = TestLog.write(dir.resolve("bundle"), lines);
        for (int threads : new int[] {1, 3}) {
            Run run = log(bundle, "--threads", threads);
            assertThat(run.exit()).isEqualTo(Exit.OK);
            assertThat(run.out()).startsWith("VALID: 2,441 entries");
        }
        // A bad line far in: the first bad line is named whichever worker saw it.
        List<String> bad = new ArrayList<>(lines);
        bad.set(2000, bad.get(2000).replace("\"ok\"", "\"error\""));
        bad.set(2300, bad.get(2300).replace("\"ok\"", "\"error\""));
        Path badBundle = TestLog.write(dir.resolve("bad"), bad);
        assertThat(log(badBundle, "--threads", 3).out()).startsWith("INVALID: entries.jsonl line 2001 (entry 2000):");
    }
}
