package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.demo.DemoFailure;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ledger-app demo} (contract sections 2 and 12): the whole story runs once, in process, against the real service,
 * and each test reads one part of what it printed. DemoIT runs the packaged jar.
 */
class DemoCommandTest {
    private static final Pattern WORK = Pattern.compile("Working directory: (\\S+) ");
    private static final Pattern CAPABILITY = Pattern.compile("cap-[0-9a-f]{32}");

    private static int exit;
    private static String out;
    private static String err;

    @BeforeAll
    static void tellTheStory() {
        Run run = run(LedgerMain.commandLine(), "demo", "--verbose");
        exit = run.exit();
        out = run.out();
        err = run.err();
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(CommandLine commandLine, String... args) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        commandLine.setOut(new PrintWriter(stdout, true));
        commandLine.setErr(new PrintWriter(stderr, true));
        int status = commandLine.execute(args);
        return new Run(status, stdout.toString(), stderr.toString());
    }

    /** The text of step {@code n}: from its header to the next step's. */
    private static String step(int n) {
        int start = out.indexOf(String.format("%n%2d. ", n));
        assertThat(start).as("step %d in:%n%s", n, out).isNotNegative();
        int end = out.indexOf(String.format("%n%2d. ", n + 1), start);
        return out.substring(start, end < 0 ? out.length() : end);
    }

    @Test
    void everyStepPassesAndTheSummaryIsTheLastLine() {
        assertThat(exit).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(err).isEmpty();
        assertThat(out.strip().lines().reduce((a, b) -> b).orElseThrow()).isEqualTo("DEMO PASSED: all 26 steps of the"
                + " pricing-desk story behaved as the contract's section 12 says; 20 receipts, the bundle verifies and replays"
                + " to the live digest, and the copy with one byte changed is rejected.");
    }

    @Test
    void theStepsAreNumberedInOrder() {
        List<Integer> numbers = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^ ?(\\d+)\\. ").matcher(out);
        while (m.find()) {
            numbers.add(Integer.parseInt(m.group(1)));
        }
        assertThat(numbers).hasSize(26).isSorted().doesNotHaveDuplicates().startsWith(1).endsWith(26);
    }

    @Test
    void aQuoteIsAdmittedAndCompletedBeforeAnyRestart() {
        assertThat(step(4)).contains("POST /v1/sessions/mcp-", "/calls  requestId q-1, tools/call pricing/quote")
                .contains("200 admitted under capability cap-")
                .containsPattern("receipt call\\.admitted rcpt-[0-9a-f]{32}, session seq 2")
                .contains("/calls/q-1/outcome  status ok")
                .containsPattern("200 call\\.outcome rcpt-[0-9a-f]{32}, session seq 3, status ok");
    }

    @Test
    void theLedgerRestartIsAReplayWithTheSameDigest() {
        String restart = step(5);
        assertThat(restart).contains("ledger    stopped", "started again on the same state",
                "200 status ok, 4 receipts, tree size 4", "the replay rebuilt the same sessions");
        Matcher digests = Pattern.compile("tree size 4, digest ([0-9a-f]{64})").matcher(restart);
        assertThat(digests.find()).isTrue();
        String before = digests.group(1);
        assertThat(digests.find()).isTrue();
        assertThat(digests.group(1)).isEqualTo(before);
    }

    @Test
    void theRestartedEdgeResumesTheSameSessionWithAFreshCapability() {
        String session = step(3).lines().filter(l -> l.contains("session mcp-")).findFirst().orElseThrow().strip()
                .substring("session ".length());
        assertThat(step(6)).contains("POST /v1/sessions/" + session + "/resume  edge edge-1, incarnation boot-2")
                .containsPattern("200 session\\.resumed rcpt-[0-9a-f]{32}, session seq 4; resumes 1")
                .contains("calls: 1 admitted, 0 refused, 1 completed, 0 unknown, 0 pending");
        assertThat(step(7)).contains("requestId q-2", "200 admitted under capability cap-");
    }

    @Test
    void theNarrowedPolicyRefusesTheQuoteWithAReceiptWhileDiscountWorks() {
        assertThat(step(8)).contains("PUT /v1/policy", "200 policy.activated rcpt-");
        assertThat(step(9)).contains("requestId q-3, tools/call pricing/quote",
                        "200 refused, not_in_scope: requested tool quote on server pricing is not in capability scope",
                        "edge      does not forward q-3")
                .containsPattern("receipt call\\.refused rcpt-[0-9a-f]{32}, session seq 7");
        assertThat(step(10)).contains("requestId d-1, tools/call pricing/discount", "200 admitted under capability");
    }

    @Test
    void theRevokedCapabilityRefusesDiscountAndStillDoesAfterARestart() {
        Matcher revoked = CAPABILITY.matcher(step(11));
        assertThat(revoked.find()).isTrue();
        String capability = revoked.group();
        assertThat(step(11)).contains("POST /v1/capabilities/" + capability + "/revoke")
                .containsPattern("200 capability\\.revoked rcpt-[0-9a-f]{32}, session seq 10");
        String refusal = "200 refused, capability_revoked: capability has been revoked: " + capability;
        assertThat(step(12)).contains("requestId d-2", refusal);
        assertThat(step(13)).contains("started again on the same state", "13 receipts, tree size 13");
        assertThat(step(14)).contains("capability " + capability + " REVOKED", "requestId d-3", refusal)
                .containsPattern("receipt call\\.refused rcpt-[0-9a-f]{32}, session seq 13");
    }

    @Test
    void theCallOfTheDeadEdgeIsOutcomeUnknownLiveAndOffline() {
        assertThat(step(15)).contains("201 session.initialized")
                .containsPattern("(?m)capability cap-[0-9a-f]{32}: pricing/discount until \\S+$");
        assertThat(step(16)).contains("requestId d-4", "200 admitted",
                "then crashes: incarnation boot-2 is gone and never reports an outcome");
        assertThat(step(17)).contains("incarnation boot-3", "calls: 1 admitted, 0 refused, 0 completed, 1 unknown,"
                + " 0 pending");
        assertThat(step(18)).contains("GET /v1/investigate/d-4", "200 verdict outcome_unknown",
                "status unknown: admitted under edge incarnation boot-2; the session was resumed by incarnation boot-3",
                "the call may have run. Inspect the pricing server's own state for its effect before any retry");
        assertThat(step(25)).contains("$ ledger-verify investigate ", " --request-id d-4 ", "exit 3",
                "OUTCOME UNKNOWN", "THE CALL MAY HAVE RUN");
    }

    @Test
    void theDeletedSessionCannotBeResumedAndNothingIsAppended() {
        assertThat(step(19)).containsPattern("DELETE /v1/sessions/mcp-\\S+")
                .containsPattern("200 session\\.deleted rcpt-[0-9a-f]{32}, session seq 5");
        assertThat(step(20)).contains("404 session_deleted: ")
                .containsPattern("20 receipts, tree size \\d+(?s).*404 session_deleted.*20 receipts, tree size");
    }

    @Test
    void theBundleIsExportedAndVerifiedOffline() {
        assertThat(step(21)).contains("200 tree size 20, digest ", "200 signed checkpoint of size 20:");
        assertThat(step(22)).contains("$ ledger-app export --state ", "exit 0", "| Exported 20 entries to ");
        assertThat(step(23)).contains("$ ledger-verify log ", "/bundle --key ", "/state/public-key.pem", "exit 0",
                "| VALID: 20 entries of the log ledger.local/");
    }

    @Test
    void theReplayDigestEqualsTheLiveDigest() {
        Matcher live = Pattern.compile("200 tree size 20, digest ([0-9a-f]{64})").matcher(step(21));
        assertThat(live.find()).isTrue();
        assertThat(step(24)).contains("$ ledger-verify replay ",
                "exit 0: 2 sessions rebuilt from 20 entries, digest " + live.group(1),
                "equal to the live GET /v1/projections/digest at the same tree size");
    }

    @Test
    void theCopyWithOneByteChangedIsRejectedNamingItsLine() {
        assertThat(step(26)).contains("changes \"tool\":\"quote\" to \"tool\":\"quota\"",
                        "in entries.jsonl line 3 (the call.admitted receipt of q-1)", "/bundle-tampered --key ",
                        "exit 1", "| INVALID: entries.jsonl line 3 (entry 2): ");
    }

    @Test
    void theTemporaryStateIsDeletedAtTheEnd() {
        Matcher work = WORK.matcher(out);
        assertThat(work.find()).isTrue();
        assertThat(out).contains("(deleted at the end; --keep keeps it)").doesNotContain("Kept the state");
        assertThat(Path.of(work.group(1))).doesNotExist();
    }

    @Test
    void aDeviationNamesItsStepExitsOneAndStillCleansUp() {
        Path[] work = new Path[1];
        Run run = run(new CommandLine(new DemoCommand((o, dir, verbose) -> {
            work[0] = dir;
            throw new DemoFailure(9, "refused, not_in_scope", "admitted");
        })));

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("DEMO FAILED at step 9: expected refused, not_in_scope, got admitted\n"
                + "Run 'ledger-app demo --keep' to keep the state and bundles for a look.\n");
        assertThat(run.out()).doesNotContain("DEMO PASSED");
        assertThat(work[0]).doesNotExist();
    }

    @Test
    void keepLeavesTheWorkingDirectoryAndSaysWhere() throws Exception {
        Path[] work = new Path[1];
        Run run = run(new CommandLine(new DemoCommand((o, dir, verbose) -> {
            work[0] = dir;
            return "told";
        })), "--keep");

        try {
            assertThat(run.exit()).isZero();
            assertThat(run.out()).isEqualTo("Working directory: " + work[0] + " (kept at the end)\n\ntold\n"
                    + "Kept the state and bundles in " + work[0] + "\n");
            assertThat(work[0]).isDirectory();
        } finally {
            Files.deleteIfExists(work[0]);
        }
    }

    @Test
    void anUnknownFlagIsOneLineAndExitTwo() {
        Run run = run(LedgerMain.commandLine(), "demo", "--fast");

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("ledger-app demo: Unknown option: '--fast' (see 'ledger-app demo --help')\n");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void helpTellsWhatTheDemoDoesAndItsExitCodes() {
        Run run = run(LedgerMain.commandLine(), "demo", "--help");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("Usage: ledger-app demo [-hV] [--keep] [--mcp] [--verbose]\n");
        // Picocli wraps the description at 80 columns.
        assertThat(run.out().replaceAll("\\s+", " ")).contains("Tells the pricing-desk story of the ledger contract's section 12", "--verbose Print session and capability ids and paths whole",
                "--keep Keep the temporary state and bundles",
                "--mcp Tell the story through the reference MCP edge (ledger-app edge) with a real MCP client", "Exit 0 when every step did, 1 at the first that did not"
                        + " ('DEMO FAILED at step N: expected X, got Y'; a ledger that cannot start fails step 1), 2 for a"
                        + " bad flag or when no temporary directory can be made.");
    }
}
