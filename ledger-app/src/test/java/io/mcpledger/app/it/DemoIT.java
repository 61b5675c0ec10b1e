package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-app demo} through the packaged jar, as a person runs it: the whole story, checked, in one command. */
class DemoIT {
    /** A cold JVM starts the ledger three times on a machine shared with other builds. */
    private static final long TIMEOUT_SECONDS = 180;

    @TempDir
    Path work;

    @Test
    void theWholeStoryPassesAndLeavesNothingBehind() throws Exception {
        Path tmp = Files.createDirectory(work.resolve("tmp"));
        Path stdout = work.resolve("stdout.txt");
        Path stderr = work.resolve("stderr.txt");
        // The demo's temporary state goes under tmp, so the test can see that it is deleted.
        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-jar", LedgerProcess.jar().toString(), "demo")
                .directory(work.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        if (!demo.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            demo.destroyForcibly();
            throw new AssertionError("ledger-app demo did not finish in " + TIMEOUT_SECONDS + " s; it printed:\n"
                    + Files.readString(stdout));
        }
        String out = Files.readString(stdout, StandardCharsets.UTF_8);
        String err = Files.readString(stderr, StandardCharsets.UTF_8);

        assertThat(demo.exitValue()).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out).contains(
                "200 refused, not_in_scope: requested tool quote on server pricing is not in capability scope",
                "200 refused, capability_revoked: capability has been revoked: cap-",
                "404 session_deleted: ",
                "200 verdict outcome_unknown",
                "the call may have run. Inspect the pricing server's own state for its effect before any retry",
                "| VALID: 20 entries of the log ledger.local/",
                "equal to the live GET /v1/projections/digest at the same tree size",
                "OUTCOME UNKNOWN",
                "| INVALID: entries.jsonl line 3 (entry 2): ");
        // Read at a glance: ids short, the working directory as $DEMO, the tree's lag explained; --verbose has the rest.
        assertThat(out).containsPattern("session mcp-[0-9a-f]{4}\\.\\.\\.[0-9a-f]{4}\n")
                .containsPattern("DELETE /v1/sessions/mcp-[0-9a-f]{4}\\.\\.\\.[0-9a-f]{4}\n")
                .containsPattern("capability cap-[0-9a-f]{4}\\.\\.\\.[0-9a-f]{4}")
                .contains("$ ledger-app export --state $DEMO/state --out $DEMO/bundle", "--verbose prints them whole")
                .doesNotContainPattern("mcp-[0-9a-f]{32}-|cap-[0-9a-f]{32}");
        assertThat(out.lines().filter(line -> line.contains(tmp + "/ledger-demo-")))
                .as("only the first line names the working directory").hasSize(1).first(STRING)
                .startsWith("Working directory: ");
        assertThat(out.lines().filter(line -> line.contains("receipts, tree size")))
                .allSatisfy(line -> assertThat(line).containsPattern("200 status ok, \\d+ receipts, tree size \\d+$"));
        if (out.contains("the tree lags the receipts by ")) {
            assertThat(out).containsPattern("the tree lags the receipts by \\d+: a stored receipt joins the signed tree"
                    + " at the next checkpoint, every 200 ms here");
        }
        List<String> lines = out.strip().lines().toList();
        assertThat(lines.get(lines.size() - 1)).startsWith("DEMO PASSED: all 26 steps of the pricing-desk story");
        assertThat(err).doesNotContain("DEMO FAILED");
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).as("the demo's temporary state is deleted").isEmpty();
        }
    }

    /**
     * {@code demo --mcp} from the packaged jar: the official MCP Java SDK client through the edge, which runs the jar's
     * own stdio pricing server; the client keeps its session across the edge's restart, and the export verifies.
     */
    @Test
    void theStoryThroughTheMcpEdgePasses() throws Exception {
        Path stdout = work.resolve("mcp-stdout.txt");
        Path stderr = work.resolve("mcp-stderr.txt");
        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", LedgerProcess.jar().toString(), "demo", "--mcp")
                .directory(work.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        if (!demo.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            demo.destroyForcibly();
            throw new AssertionError("ledger-app demo --mcp did not finish in " + TIMEOUT_SECONDS + " s; it printed:\n"
                    + Files.readString(stdout));
        }
        String out = Files.readString(stdout, StandardCharsets.UTF_8);
        String err = Files.readString(stderr, StandardCharsets.UTF_8);

        assertThat(demo.exitValue()).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out).contains("alice     initialize (protocol 2025-11-25) -> server pricing 1.0.0",
                "the edge resumed mcp-", "(resumes 1): a fresh capability from the current policy, no new initialize",
                "-> error result: requested tool quote on server pricing is not in capability scope",
                "-> error result: capability has been revoked: cap-",
                "200 verdict outcome_unknown",
                "-> 404 session has been deleted",
                "equal to the live GET /v1/projections/digest at the same tree size");
        List<String> lines = out.strip().lines().toList();
        assertThat(lines.get(lines.size() - 1)).startsWith("DEMO PASSED: all 16 steps of the pricing-desk story");
    }
}
