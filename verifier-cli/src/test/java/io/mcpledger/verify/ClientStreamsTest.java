package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log holding sessions and client streams (contract section 15: calls made without a session): {@code log} checks
 * each client chain as it checks sessions and names every tampering at its line, and {@code replay} adds the streams
 * to what it rebuilds and to the digest.
 */
class ClientStreamsTest {
    private static final String ALICE = "aa".repeat(32);
    private static final String BOB = "bb".repeat(32);

    @TempDir
    Path dir;

    /** A policy, one session with a completed call, and two client streams interleaved with it. */
    private static List<String> mixed() {
        return new ArrayList<>(new TestLog().policy()
                .initialize(TestLog.SESSION, "boot-1")
                .decideForClient(ALICE, "r-1", "alice", true)
                .admit(TestLog.SESSION, "q-1", "ab".repeat(32))
                .decideForClient(BOB, "r-1", "bob", false)
                .outcomeForClient(ALICE, "r-1", "ok")
                .outcome(TestLog.SESSION, "q-1", "ok")
                .decideForClient(ALICE, "r-2", "alice", true)
                .lines());
    }

    private Run log(List<String> lines, Object... more) {
        Path bundle = TestLog.write(dir.resolve("bundle-" + System.nanoTime()), lines);
        List<Object> args = new ArrayList<>(List.of("log", bundle, "--key", bundle.resolve("key.pem")));
        args.addAll(List.of(more));
        return Run.of(args.toArray());
    }

    @Test
    void aLogWithClientStreamsIsValidAndCountsThem() throws Exception {
        Run run = log(mixed());

        assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(Exit.OK);
        assertThat(run.out()).contains("  sessions    1, each chain linked from seq 1\n"
                + "  clients     2, streams of calls without a session, each chain linked from seq 1\n");
        JsonNode json = Canonical.parse(log(mixed(), "--json").out());
        assertThat(json.path("sessions").asLong()).isEqualTo(1);
        assertThat(json.path("clients").asLong()).isEqualTo(2);
    }

    @Test
    void aLogWithoutClientStreamsSaysNothingOfThem() throws Exception {
        Run run = log(TestLog.vectorLines());

        assertThat(run.out()).doesNotContain("clients");
        assertThat(Canonical.parse(log(TestLog.vectorLines(), "--json").out()).has("clients")).isFalse();
    }

    @Test
    void aDroppedClientLineBreaksItsChainAtTheNextLine() {
        List<String> lines = mixed();
        lines.remove(5); // alice's seq 2, the outcome of r-1

        Run run = log(lines);

        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 7 (entry 6): client " + ALICE
                + " jumps from seq 1 (line 3) to seq 3: seq 2 is missing here (dropped, or moved later)");
    }

    @Test
    void swappedClientLinesAreNamed() {
        List<String> lines = mixed();
        String outcome = lines.remove(5);
        lines.add(7, outcome); // alice's seq 2 after her seq 3

        Run run = log(lines);

        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 7 (entry 6): client " + ALICE
                + " jumps from seq 1 (line 3) to seq 3");
    }

    @Test
    void aChangedByteOfAClientReceiptIsNamed() {
        List<String> lines = mixed();
        lines.set(4, lines.get(4).replace("\"principal\":\"bob\"", "\"principal\":\"bop\""));

        Run run = log(lines);

        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 5 (entry 4): the signature of receipt ");
    }

    @Test
    void aDecisionForAnotherPrincipalOfTheSameTokenBreaksTheHistory() {
        List<String> lines = new TestLog().decideForClient(ALICE, "r-1", "alice", true)
                .decideForClient(ALICE, "r-2", "mallory", true).lines();

        Path bundle = TestLog.write(dir.resolve("bundle"), lines);
        // log checks each chain; replay folds, and the fold holds a stream to its first principal.
        assertThat(log(lines).exit()).isEqualTo(Exit.OK);
        Run run = Run.of("replay", bundle, "--key", bundle.resolve("key.pem"));

        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: entries.jsonl line 2 (entry 1): the history does not hold together:"
                + " client " + ALICE + " is principal alice, but call.admitted ");
    }

    @Test
    void replayAddsTheClientStreamsToWhatItRebuildsAndToTheDigest() throws Exception {
        List<String> lines = mixed();
        Path bundle = TestLog.write(dir.resolve("bundle"), lines);
        MemoryLedgerState expected = new MemoryLedgerState();
        for (String line : lines) {
            LedgerFold.apply(expected, Receipt.parse(line));
        }

        Run json = Run.of("replay", bundle, "--key", bundle.resolve("key.pem"), "--json");
        Run text = Run.of("replay", bundle, "--key", bundle.resolve("key.pem"));

        assertThat(json.exit()).as(json.err()).isEqualTo(Exit.OK);
        JsonNode answer = Canonical.parse(json.out());
        assertThat(answer.path("digest").asText()).isEqualTo(ProjectionDigest.of(expected));
        assertThat(answer.path("clients")).hasSize(2);
        assertThat(answer.path("clients").get(0).path("tokenRef").asText()).isEqualTo(ALICE);
        assertThat(answer.path("clients").get(0).path("calls").path("admitted").asLong()).isEqualTo(2);
        assertThat(answer.path("clients").get(1).path("calls").path("refused").asLong()).isEqualTo(1);
        assertThat(text.out()).contains("Client streams (2: calls made without a session, by tokenRef):\n  " + ALICE
                + "  principal alice, seq 3\n      calls: 2 admitted, 0 refused, 1 completed, 0 unknown, 1 pending\n");
    }

    @Test
    void investigateFollowsACallOfAClientStream() throws Exception {
        List<String> lines = new ArrayList<>(new TestLog().decideForClient(ALICE, "r-1", "alice", true)
                .outcomeForClient(ALICE, "r-1", "unknown").decideForClient(ALICE, "r-2", "alice", true).lines());
        Path bundle = TestLog.write(dir.resolve("bundle"), lines);

        Run unknown = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-1");
        Run pending = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-2",
                "--json");
        Run missing = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-9",
                "--client", ALICE);

        assertThat(unknown.exit()).as(unknown.err()).isEqualTo(Exit.OUTCOME_UNKNOWN);
        assertThat(unknown.out()).startsWith("Request r-1 of client " + ALICE + ": OUTCOME UNKNOWN\n")
                .contains("Grant in force at admission: ", "Later calls in the client's stream with the same tool and"
                        + " arguments:\n  ");
        JsonNode answer = Canonical.parse(pending.out());
        assertThat(pending.exit()).isEqualTo(Exit.OUTCOME_UNKNOWN);
        assertThat(answer.path("verdict").asText()).isEqualTo("pending");
        assertThat(answer.path("client").asText()).isEqualTo(ALICE);
        assertThat(answer.has("session")).isFalse();
        assertThat(answer.path("timeline")).hasSize(1);
        assertThat(missing.exit()).isEqualTo(Exit.NOT_FOUND);
        assertThat(missing.out()).contains("No receipt of this request in the stream of client " + ALICE + ".");
    }

    @Test
    void aRequestIdInASessionAndAClientStreamMustBeNamed() {
        List<String> lines = new ArrayList<>(new TestLog().initialize(TestLog.SESSION, "boot-1")
                .admit(TestLog.SESSION, "r-1", "ab".repeat(32)).decideForClient(ALICE, "r-1", "alice", false)
                .lines());
        Path bundle = TestLog.write(dir.resolve("bundle"), lines);

        Run ambiguous = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-1");
        Run named = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-1",
                "--client", ALICE);
        Run both = Run.of("investigate", bundle, "--key", bundle.resolve("key.pem"), "--request-id", "r-1",
                "--client", ALICE, "--session", TestLog.SESSION);

        assertThat(ambiguous.exit()).isEqualTo(Exit.USAGE);
        assertThat(ambiguous.err()).isEqualTo("ledger-verify investigate: the request id r-1 was used in 1 sessions"
                + " and 1 client streams; name one with --session ID or --client TOKENREF:\n  session "
                + TestLog.SESSION + "\n  client " + ALICE + "\n");
        assertThat(named.exit()).isEqualTo(Exit.OK);
        assertThat(named.out()).startsWith("Request r-1 of client " + ALICE + ": REFUSED\n");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.err()).contains("give --session or --client, not both");
    }
}
