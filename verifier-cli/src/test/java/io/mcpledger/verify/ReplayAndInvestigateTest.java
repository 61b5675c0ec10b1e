package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replay} and {@code investigate}: verify first, then the ledger's own fold over the entries alone. */
class ReplayAndInvestigateTest {
    private static final String ARGS = "ab".repeat(32);

    @TempDir
    Path dir;

    /** A log with every verdict (ok, error, refused, unknown, pending), a repeated call and a deleted session. */
    private Path story() {
        TestLog log = new TestLog().policy()
                .initialize("s-1", "1")
                .admit("s-1", "r-ok", ARGS).outcome("s-1", "r-ok", "ok")
                .admit("s-1", "r-err", "cd".repeat(32)).outcome("s-1", "r-err", "error")
                .refuse("s-1", "r-refused")
                .admit("s-1", "r-lost", "ef".repeat(32)).outcome("s-1", "r-lost", "unknown")
                .admit("s-1", "r-retry", "ef".repeat(32))
                .initialize("s-2", "1")
                .admit("s-2", "r-ok", ARGS)
                .initialize("s-3", "1")
                .add(ReceiptKind.SESSION_DELETED, "s-3", null, TestLog.body("session.deleted"));
        return TestLog.write(dir.resolve("bundle"), log.lines());
    }

    private static Run run(Object... args) {
        return Run.of(args);
    }

    @Test
    void replayPrintsTheSameDigestAsTheFoldAtEverySize() throws Exception {
        Path bundle = story();
        List<String> lines = java.nio.file.Files.readAllLines(bundle.resolve(Bundles.ENTRIES));
        MemoryLedgerState state = new MemoryLedgerState();
        for (int upto = 0; upto <= lines.size(); upto++) {
            if (upto > 0) {
                LedgerFold.apply(state, Receipt.parse(lines.get(upto - 1)));
            }
            Run run = run("replay", bundle, "--upto", upto, "--json", "--key", bundle.resolve("key.pem"));
            assertThat(run.exit()).isEqualTo(Exit.OK);
            JsonNode json = Canonical.parse(run.out());
            assertThat(json.path("treeSize").asLong()).isEqualTo(upto);
            assertThat(json.path("digest").asText()).isEqualTo(ProjectionDigest.of(state));
        }
    }

    @Test
    void byRootReplaysToTheSameDigestAndStillRefusesAChangedLine() throws Exception {
        Path bundle = story();
        Object[] key = {"--key", bundle.resolve("key.pem")};
        String full = Canonical.parse(run("replay", bundle, "--json", key[0], key[1]).out()).path("digest").asText();
        Run byRoot = run("replay", bundle, "--by-root", "--json", key[0], key[1]);
        assertThat(byRoot.exit()).isEqualTo(Exit.OK);
        assertThat(Canonical.parse(byRoot.out()).path("digest").asText()).isEqualTo(full);
        assertThat(run("replay", bundle, "--by-root", key[0], key[1]).out())
                .contains("(the log verified by its signed root; receipts' own signatures not checked)");

        // A changed byte that keeps the line a valid receipt: the signature would say which line; the root still
        // says the lines are not the ones the checkpoint signs.
        List<String> lines = java.nio.file.Files.readAllLines(bundle.resolve(Bundles.ENTRIES));
        lines.set(13, lines.get(13).replace("\"at\":\"2026-11-30T07:00:1", "\"at\":\"2026-11-30T07:00:2"));
        Path changed = TestLog.write(dir.resolve("changed"), lines, Files.readString(bundle.resolve(Bundles.CHECKPOINT)));
        assertThat(run("replay", changed, "--key", changed.resolve("key.pem")).out())
                .startsWith("INVALID: entries.jsonl line 14 (entry 13): the signature");
        // With --by-root the root finds it; the failure is checked again with signatures to name the line.
        Run rootOnly = run("replay", changed, "--by-root", "--key", changed.resolve("key.pem"));
        assertThat(rootOnly.exit()).isEqualTo(Exit.INVALID);
        assertThat(rootOnly.out()).startsWith("INVALID: entries.jsonl line 14 (entry 13): the signature");
        assertThat(run("investigate", changed, "--by-root", "--request-id", "r-ok", "--session", "s-1",
                "--key", changed.resolve("key.pem")).exit()).isEqualTo(Exit.INVALID);
    }

    @Test
    void byRootRefusesABodyTheFoldCannotReadAsAnInvalidLogNamingItsLine() throws Exception {
        Path bundle = story();
        List<String> lines = Files.readAllLines(bundle.resolve(Bundles.ENTRIES));
        lines.set(1, lines.get(1).replaceFirst("\"notAfter\":\"[^\"]*\"", "\"notAfter\":\"soon\""));
        Path changed = TestLog.write(dir.resolve("changed"), lines, Files.readString(bundle.resolve(Bundles.CHECKPOINT)));
        for (String command : List.of("replay", "investigate")) {
            Run run = command.equals("replay") ? run("replay", changed, "--by-root", "--key", changed.resolve("key.pem"))
                    : run("investigate", changed, "--by-root", "--request-id", "r-ok", "--session", "s-1", "--key",
                            changed.resolve("key.pem"));
            assertThat(run.exit()).as(command + ": " + run.err()).isEqualTo(Exit.INVALID);
            assertThat(run.out()).startsWith("INVALID: entries.jsonl line 2 (entry 1): the signature");
        }
    }

    @Test
    void replayJsonHasTheSpecsShape() throws Exception {
        Path bundle = story();
        JsonNode json = Canonical.parse(run("replay", bundle, "--json", "--key", bundle.resolve("key.pem")).out());
        assertThat(json.fieldNames()).toIterable()
                .containsExactly("treeSize", "digest", "sessions", "revokedPrincipals", "policy");
        assertThat(json.path("sessions")).hasSize(3);
        JsonNode calls = json.path("sessions").get(0).path("calls");
        assertThat(calls.path("admitted").asLong()).isEqualTo(4);
        assertThat(calls.path("refused").asLong()).isEqualTo(1);
        assertThat(calls.path("completed").asLong()).isEqualTo(2);
        assertThat(calls.path("unknown").asLong()).isEqualTo(1);
        assertThat(calls.path("pending").asLong()).isEqualTo(1);
        assertThat(json.path("sessions").get(0).has("expiresAt")).isFalse();
    }

    @Test
    void replayTextNamesSessionsCapabilitiesRevocationsAndTombstones() {
        Path bundle = story();
        Run run = run("replay", bundle, "--key", bundle.resolve("key.pem"));
        assertThat(run.exit()).isEqualTo(Exit.OK);
        assertThat(run.out()).contains("Replayed 14 of 14 entries", "Sessions (3):", "s-1  active",
                "calls: 4 admitted, 1 refused, 2 completed, 1 unknown, 1 pending", "Capabilities:",
                "cap-s-1  in force  session s-1", "pricing/quote invoke until", "Revoked principals (0",
                "Tombstones (1", "  s-3  deleted (last receipt seq 2)", "Projection digest at tree size 14: ");
    }

    @Test
    void replayRefusesAnInvalidLogAndAnUptoBeyondIt() throws Exception {
        Path bundle = story();
        Run beyond = run("replay", bundle, "--upto", 15, "--key", bundle.resolve("key.pem"));
        assertThat(beyond.exit()).isEqualTo(Exit.USAGE);
        assertThat(beyond.err()).contains("--upto 15 is beyond the log, which has 14 entries");
        assertThat(run("replay", bundle, "--upto", -1).exit()).isEqualTo(Exit.USAGE);

        List<String> lines = java.nio.file.Files.readAllLines(bundle.resolve(Bundles.ENTRIES));
        Path bad = TestLog.write(dir.resolve("bad"), lines.subList(0, 10), TestLog.checkpoint(lines, 14, TestLog.KEY));
        Run invalid = run("replay", bad, "--key", bad.resolve("key.pem"));
        assertThat(invalid.exit()).isEqualTo(Exit.INVALID);
        assertThat(invalid.out()).startsWith("INVALID: entries.jsonl line 11 (entry 10): missing");
    }

    @Test
    void aHistoryTheFoldRefusesIsAnInvalidLogForReplay() {
        // Validly signed and chained, but an outcome for a request that was never admitted.
        TestLog log = new TestLog().policy().initialize("s-1", "1").outcome("s-1", "r-never", "ok");
        Path bundle = TestLog.write(dir.resolve("bundle"), log.lines());
        assertThat(run("log", bundle, "--key", bundle.resolve("key.pem")).exit()).isEqualTo(Exit.OK);
        Run replay = run("replay", bundle, "--key", bundle.resolve("key.pem"));
        assertThat(replay.exit()).isEqualTo(Exit.INVALID);
        assertThat(replay.out()).startsWith("INVALID: entries.jsonl line 3 (entry 2): the history does not hold"
                + " together: call.outcome for request r-never which was not admitted");
    }

    @Test
    void investigateExitsByVerdict() throws Exception {
        Path bundle = story();
        Object[] key = {"--key", bundle.resolve("key.pem")};
        record Case(String request, String session, String verdict, int exit) {
        }
        for (Case c : List.of(
                new Case("r-ok", "s-1", "completed_ok", Exit.OK),
                new Case("r-err", "s-1", "completed_error", Exit.OK),
                new Case("r-refused", "s-1", "refused", Exit.OK),
                new Case("r-lost", "s-1", "outcome_unknown", Exit.OUTCOME_UNKNOWN),
                new Case("r-retry", "s-1", "pending", Exit.OUTCOME_UNKNOWN),
                new Case("r-none", null, "not_found", Exit.NOT_FOUND),
                new Case("r-ok", "s-9", "not_found", Exit.NOT_FOUND))) {
            Run run = c.session() == null
                    ? run("investigate", bundle, "--request-id", c.request(), "--json", key[0], key[1])
                    : run("investigate", bundle, "--request-id", c.request(), "--session", c.session(), "--json",
                            key[0], key[1]);
            assertThat(run.exit()).as(c.toString()).isEqualTo(c.exit());
            assertThat(Canonical.parse(run.out()).path("verdict").asText()).as(c.toString()).isEqualTo(c.verdict());
        }
    }

    @Test
    void investigateShowsTheTimelineCapabilityPolicyAndLaterCalls() throws Exception {
        Path bundle = story();
        Run run = run("investigate", bundle, "--request-id", "r-lost", "--key", bundle.resolve("key.pem"));
        assertThat(run.exit()).isEqualTo(Exit.OUTCOME_UNKNOWN);
        assertThat(run.out()).startsWith("Request r-lost in session s-1: OUTCOME UNKNOWN")
                .contains("THE CALL MAY HAVE RUN. Inspect the tool's own state for its effect before any retry")
                .contains("call.admitted", "call.outcome", "status unknown")
                .contains("Capability in force at admission: cap-s-1")
                .contains("Policy in force at admission: b699457d17a540e795d3a0599378174fde1c8c19d5d7e1e3a3f3b437b4673809")
                .contains("Operator resolution: none")
                .contains("request r-retry  admitted, pending");
        JsonNode json = Canonical.parse(run("investigate", bundle, "--request-id", "r-lost", "--json", "--key",
                bundle.resolve("key.pem")).out());
        assertThat(json.fieldNames()).toIterable().contains("verdict", "session", "requestId", "timeline",
                "capability", "policy", "laterCalls");
        assertThat(json.path("timeline")).hasSize(2);
        assertThat(json.path("timeline").get(0).path("kind").asText()).isEqualTo(ReceiptKind.CALL_ADMITTED.wire());
        assertThat(json.path("laterCalls").get(0).path("requestId").asText()).isEqualTo("r-retry");
    }

    @Test
    void aRequestIdInSeveralSessionsNeedsSession() throws Exception {
        TestLog log = new TestLog().policy().initialize("s-1", "1").admit("s-1", "r-1", ARGS)
                .initialize("s-2", "1").admit("s-2", "r-1", ARGS);
        Path bundle = TestLog.write(dir.resolve("bundle"), log.lines());
        Run run = run("investigate", bundle, "--request-id", "r-1", "--key", bundle.resolve("key.pem"));
        assertThat(run.exit()).isEqualTo(Exit.USAGE);
        assertThat(run.err()).isEqualTo("ledger-verify investigate: the request id r-1 was used in 2 sessions; name one"
                + " with --session ID:\n  s-1\n  s-2\n");
        Run json = run("investigate", bundle, "--request-id", "r-1", "--json", "--key", bundle.resolve("key.pem"));
        assertThat(json.exit()).isEqualTo(Exit.USAGE);
        assertThat(Canonical.parse(json.out()).path("sessions")).hasSize(2);
        assertThat(run("investigate", bundle, "--request-id", "r-1", "--session", "s-2", "--key",
                bundle.resolve("key.pem")).exit()).isEqualTo(Exit.OUTCOME_UNKNOWN);
    }

    @Test
    void investigateOnAnInvalidLogExitsOne() throws Exception {
        Path bundle = story();
        java.nio.file.Files.writeString(bundle.resolve(Bundles.CHECKPOINT),
                TestLog.vectorCheckpoint());
        Run run = run("investigate", bundle, "--request-id", "r-ok", "--session", "s-1", "--key",
                bundle.resolve("key.pem"));
        assertThat(run.exit()).isEqualTo(Exit.INVALID);
        assertThat(run.out()).startsWith("INVALID: ");
    }
}
