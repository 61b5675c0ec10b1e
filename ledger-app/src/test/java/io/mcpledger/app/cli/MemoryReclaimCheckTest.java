package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start's warning about a host that pages out idle memory while the ledger runs ZGC, on DAMON's sysfs layout. */
class MemoryReclaimCheckTest {
    private static final List<String> ZGC = List.of("ZGC Cycles", "ZGC Pauses");
    private static final List<String> G1 = List.of("G1 Young Generation", "G1 Old Generation");

    @TempDir
    Path kdamonds;

    @Test
    void zgcBesideARunningPageoutSchemeIsWarnedAboutWithTheAdvice() throws IOException {
        kdamond("0", "on", "stat");
        kdamond("1", "on", "lru_prio", "pageout");

        assertThat(MemoryReclaimCheck.warning(kdamonds, ZGC)).hasValueSatisfying(warning -> assertThat(warning)
                .contains("kdamond 1").doesNotContain("kdamond 0")
                .contains("-XX:+UseG1GC -XX:+UseTransparentHugePages"));
    }

    @Test
    void g1IsNotWarnedAbout() throws IOException {
        kdamond("0", "on", "pageout");

        assertThat(MemoryReclaimCheck.warning(kdamonds, G1)).isEmpty();
    }

    @Test
    void aStoppedMonitorOrOneThatDoesNotPageOutIsNotWarnedAbout() throws IOException {
        kdamond("0", "off", "pageout");
        kdamond("1", "on", "stat", "hugepage");

        assertThat(MemoryReclaimCheck.warning(kdamonds, ZGC)).isEmpty();
    }

    @Test
    void aHostWithoutDamonSaysNothing() {
        assertThat(MemoryReclaimCheck.warning(kdamonds.resolve("absent"), ZGC)).isEmpty();
        assertThat(MemoryReclaimCheck.warning(kdamonds, ZGC)).isEmpty();
    }

    /** A monitoring thread as the kernel lists it, with one context and a scheme per action. */
    private void kdamond(String id, String state, String... actions) throws IOException {
        Path daemon = Files.createDirectories(kdamonds.resolve(id));
        Files.writeString(daemon.resolve("state"), state + "\n");
        Files.writeString(daemon.resolve("pid"), "83\n");
        Path schemes = Files.createDirectories(daemon.resolve("contexts/0/schemes"));
        Files.writeString(schemes.resolve("nr_schemes"), actions.length + "\n");
        for (int i = 0; i < actions.length; i++) {
            Path scheme = Files.createDirectories(schemes.resolve(String.valueOf(i)));
            Files.writeString(scheme.resolve("action"), actions[i] + "\n");
        }
        Files.writeString(kdamonds.resolve("nr_kdamonds"), "1\n");
    }
}
