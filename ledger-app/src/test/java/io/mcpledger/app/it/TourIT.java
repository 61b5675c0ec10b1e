package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.testing.InteropTools;
import io.mcpledger.app.testing.TestIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's start command and five-minute tour, taken from {@code README.md} itself, run with bash as a newcomer
 * pastes them (the same relative paths, one directory, the ledger stopped between the blocks where the README says
 * so) against the packaged jars. Each block's output must be the README's output block with only the values that
 * differ per run (ids, hashes, signatures, keys, the temporary directory) replaced, so the README cannot drift from
 * what the jar prints. Needs {@code curl} and {@code jq}, as the README says: skipped without them, except where
 * {@code LEDGER_TEST_INTEROP=required} (CI), where their absence fails.
 */
class TourIT {
    private static final Path REPO = Path.of(System.getProperty("basedir", ".")).resolve("..").normalize();
    private static final String ADDRESS = "127.0.0.1:4320";

    @TempDir
    Path work;

    @BeforeAll
    static void requireCurlAndJq() {
        for (String tool : List.of("curl", "jq")) {
            if (!InteropTools.onPath(tool)) {
                InteropTools.requireOrSkip("TourIT", tool + " is not on the PATH (Debian package " + tool
                        + "), and the README's tour needs it");
            }
        }
    }

    @Test
    void theTourPrintsWhatTheReadmeShows() throws Exception {
        String readme = Files.readString(REPO.resolve("README.md"));
        List<Block> start = blocks(section(readme, "## Two commands"));
        List<Block> tour = blocks(section(readme, "## A five-minute tour"));
        assertThat(tour).as("the tour's blocks: session and call, receipt and proof, export and verify, then the demo"
                + " (DemoIT's)").hasSize(4);
        lay(work);
        int port = LedgerProcess.freePort();
        String address = "127.0.0.1:" + port;

        String serve = start.get(0).commands().replaceFirst("(?s)^mvn [^&]*&& ", "").strip();
        assertThat(serve).startsWith("java ").contains(" serve ");
        Process ledger = new ProcessBuilder("bash", "-c", "exec " + serve + " --listen " + address)
                .directory(work.toFile()).start();
        List<String> out = new CopyOnWriteArrayList<>();
        List<String> err = new CopyOnWriteArrayList<>();
        TestIo.collectLines(ledger.getInputStream(), out);
        TestIo.collectLines(ledger.getErrorStream(), err);
        try {
            awaitReady(ledger, out, err);
            assertThat(out).as("stdout of serve").contains(readyLine(readme).replace(ADDRESS, address));

            String first = tour.get(0).commands();
            assertThat(first).as("the tour names the ledger's address once").containsOnlyOnce("L=" + ADDRESS + "\n");
            Run running = bash(first.replace("L=" + ADDRESS + "\n", "L=" + address + "\n") + "\necho @@@\n"
                    + tour.get(1).commands() + "\necho \"$T\" >tour-dir\n");
            String[] outputs = running.stdout().split("@@@\n", -1);
            assertThat(outputs).as("stdout: %s", running.stdout()).hasSize(2);
            Path t = Path.of(Files.readString(work.resolve("tour-dir")).strip());
            assertThat(t).isDirectory();
            assertSameShape(outputs[0], tour.get(0).output(), t);
            assertSameShape(outputs[1], tour.get(1).output(), t);
        } finally {
            ledger.destroy();
            assertThat(ledger.waitFor(60, TimeUnit.SECONDS)).as("the ledger stops on SIGTERM").isTrue();
        }

        Path t = Path.of(Files.readString(work.resolve("tour-dir")).strip());
        Run verified = bash("T=" + t + "\n" + tour.get(2).commands());
        assertSameShape(verified.stdout(), tour.get(2).output(), t);
    }

    /** The command block and the output block that follows it in the README. */
    private record Block(String commands, String output) {}

    private static String section(String readme, String heading) {
        int from = readme.indexOf(heading + "\n");
        assertThat(from).as("README has %s", heading).isNotNegative();
        int to = readme.indexOf("\n## ", from + heading.length());
        return readme.substring(from, to < 0 ? readme.length() : to);
    }

    private static List<Block> blocks(String section) {
        Matcher m = Pattern.compile("```sh\n(.*?)```\n(?:```\n(.*?)```\n)?", Pattern.DOTALL).matcher(section);
        List<Block> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(new Block(m.group(1), m.group(2) == null ? "" : m.group(2)));
        }
        return blocks;
    }

    private static String readyLine(String readme) {
        Matcher m = Pattern.compile("It prints `(Ready: [^`]*)`").matcher(readme);
        assertThat(m.find()).as("README shows the Ready line").isTrue();
        return m.group(1);
    }

    /** The directory a newcomer runs the README from: the two jars and the example policy where the README has them. */
    private static void lay(Path work) throws IOException {
        copy(LedgerProcess.jar(), work.resolve("ledger-app/target/ledger-app-0.1.0-SNAPSHOT.jar"));
        copy(Path.of(System.getProperty("ledger.verify.jar")), work.resolve("verifier-cli/target/ledger-verify.jar"));
        copy(REPO.resolve("docs/examples/pricing-policy.yaml"), work.resolve("docs/examples/pricing-policy.yaml"));
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(from, to);
    }

    private static void awaitReady(Process ledger, List<String> out, List<String> err) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (out.stream().noneMatch(line -> line.startsWith("Ready: "))) {
            assertThat(ledger.isAlive()).as("the ledger exited: %s %s", out, err).isTrue();
            assertThat(System.nanoTime()).as("no Ready line in 60 s: %s %s", out, err).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private record Run(String stdout) {}

    private Run bash(String script) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-eo", "pipefail", "-c", script).directory(work.toFile());
        Map<String, String> env = pb.environment();
        env.put("TMPDIR", Files.createDirectories(work.resolve("tmp")).toString());
        Process p = pb.start();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread errors = TestIo.collectLines(p.getErrorStream(), err);
        byte[] stdout = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the block finishes in 120 s").isTrue();
        errors.join(5_000);
        String text = new String(stdout, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("exit of\n%s\nstdout: %s\nstderr: %s", script, text, err).isZero();
        assertThat(err).as("stderr of\n%s", script).isEmpty();
        return new Run(text);
    }

    private static void assertSameShape(String actual, String readme, Path t) {
        assertThat(shape(actual.replace(t.toString(), "$T"))).isEqualTo(shape(readme));
    }

    /** The text with what differs per run replaced by its kind. */
    static String shape(String text) {
        return text.replaceAll("/tmp/tmp\\.[A-Za-z0-9]{10}", "\\$T")
                .replaceAll("rcpt-[0-9a-f]{32}", "rcpt-#")
                .replaceAll("mcp-[0-9a-f]{32}-[0-9a-f]{32}", "mcp-#")
                .replaceAll("ledger\\.local/[0-9a-f]{16}", "ledger.local/#")
                .replaceAll("keyId [0-9a-f]{8}", "keyId #")
                .replaceAll("[A-Za-z0-9+/]{86,}={0,2}", "SIGNATURE")
                .replaceAll("[A-Za-z0-9+/]{43}=", "HASH");
    }
}
