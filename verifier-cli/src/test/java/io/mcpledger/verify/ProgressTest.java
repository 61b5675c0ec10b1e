package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress line on a terminal: quiet for the first second, then overwritten in place, erased at the end. */
class ProgressTest {
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(5 * SECOND);
    private final StringWriter written = new StringWriter();

    private Progress progress(boolean enabled) {
        return new Progress(new PrintWriter(written, true), enabled, 4096, now::get);
    }

    @Test
    void aLongCheckShowsItsProgressInPlaceAndErasesIt() {
        Progress progress = progress(true);
        progress.update(1024, 1024);
        assertThat(written.toString()).as("quiet in the first second").isEmpty();

        now.addAndGet(2 * SECOND);
        progress.update(1000, 1024);
        assertThat(written.toString()).as("only every 1024 lines").isEmpty();
        progress.update(2048, 2048);
        assertThat(written.toString()).isEqualTo("\rledger-verify: 2,048 lines checked (50%), 2 s");

        now.addAndGet(SECOND / 10);
        progress.update(3072, 3072);
        assertThat(written.toString()).as("at most five times a second").endsWith("(50%), 2 s");

        now.addAndGet(SECOND);
        progress.update(4096, 4096);
        assertThat(written.toString()).endsWith("\rledger-verify: 4,096 lines checked (100%), 3 s");

        progress.done();
        String width = " ".repeat("ledger-verify: 4,096 lines checked (100%), 3 s".length());
        assertThat(written.toString()).endsWith("\r" + width + "\r");
    }

    @Test
    void offMeansNothingIsWritten() {
        Progress progress = progress(false);
        now.addAndGet(10 * SECOND);
        progress.update(4096, 4096);
        progress.done();
        assertThat(written.toString()).isEmpty();
        assertThat(Progress.wanted(true)).as("never with --json").isFalse();
    }

    @Test
    void aRunWithoutATerminalPrintsOnlyTheAnswer(@TempDir java.nio.file.Path dir) {
        // Tests run without a console, as a script does: nothing on stderr (the key is given, so no note either).
        java.nio.file.Path bundle = TestLog.write(dir.resolve("bundle"), TestLog.vectorLines(),
                TestLog.vectorCheckpoint());
        Run run = Run.of("log", bundle, "--key", bundle.resolve("key.pem"));
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).startsWith("VALID:");
    }
}
