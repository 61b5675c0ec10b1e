package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start's warning about a host that pages out idle memory while the ledger runs ZGC, on DAMON's sysfs layout. */
class MemoryReclaimCheckTest {
    private static final List<String> ZGC = List.of("ZGC Cycles", "ZGC Pauses");
    private static final List<String> G1 = List.of("G1 Young Generation", "G1 Old Generation");
    private static final List<String> SHENANDOAH = List.of("Shenandoah Pauses", "Shenandoah Cycles");

    @TempDir
    Path kdamonds;
    @TempDir
    Path proc;

    @Test
    void zgcBesideARunningPageoutSchemeIsWarnedAboutWithTheAdvice() throws IOException {
        kdamond("0", "on", "stat");
        kdamond("1", "on", "lru_prio", "pageout");

        assertThat(warning(ZGC, MemoryReclaimCheckTest::read)).hasValueSatisfying(warning -> assertThat(warning)
                .contains("kdamond 1").doesNotContain("kdamond 0")
                .contains("-XX:+UseG1GC -XX:+UseTransparentHugePages").contains("-XX:+UseShenandoahGC"));
    }

    @Test
    void g1AndShenandoahAreNotWarnedAbout() throws IOException {
        kdamond("0", "on", "pageout");

        assertThat(warning(G1, MemoryReclaimCheckTest::read)).isEmpty();
        assertThat(warning(SHENANDOAH, MemoryReclaimCheckTest::read)).isEmpty();
    }

    @Test
    void aStoppedMonitorOrOneThatDoesNotPageOutIsNotWarnedAbout() throws IOException {
        kdamond("0", "off", "pageout");
        kdamond("1", "on", "stat", "hugepage");

        assertThat(warning(ZGC, MemoryReclaimCheckTest::read)).isEmpty();
    }

    @Test
    void aHostWithoutDamonSaysNothing() {
        assertThat(MemoryReclaimCheck.warning(kdamonds.resolve("absent"), proc, ZGC, MemoryReclaimCheckTest::read))
                .isEmpty();
        assertThat(warning(ZGC, MemoryReclaimCheckTest::read)).isEmpty();
    }

    @Test
    void withoutRootAKdamondThreadAmongTheProcessesIsWarnedAboutAsAPossibility() throws IOException {
        kdamond("0", "on", "stat");
        process("1", "systemd");
        process("83", "kdamond.0");

        assertThat(warning(ZGC, MemoryReclaimCheckTest::refused))
                .hasValueSatisfying(warning -> assertThat(warning).contains("kdamond").contains("only root")
                        .contains("-XX:+UseG1GC -XX:+UseTransparentHugePages"));
        assertThat(warning(G1, MemoryReclaimCheckTest::refused)).isEmpty();
    }

    @Test
    void withoutRootAndWithoutAKdamondThreadNothingIsSaid() throws IOException {
        kdamond("0", "on", "pageout");
        process("1", "systemd");
        process("2", "kthreadd");

        assertThat(warning(ZGC, MemoryReclaimCheckTest::refused)).isEmpty();
    }

    /** The check on this test's copy of DAMON's files and of {@code /proc}. */
    private Optional<String> warning(List<String> collectors, MemoryReclaimCheck.FileReader reader) {
        return MemoryReclaimCheck.warning(kdamonds, proc, collectors, reader);
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file).strip();
    }

    /** What a user other than root gets from DAMON's files. */
    private static String refused(Path file) throws IOException {
        throw new AccessDeniedException(file.toString());
    }

    private void process(String pid, String name) throws IOException {
        Files.writeString(Files.createDirectories(proc.resolve(pid)).resolve("comm"), name + "\n");
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
