package io.mcpledger.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    @Test
    void threadsDifferingInATrailingNumberAreOneKind() {
        assertThat(ThreadCpu.kind("ledger-commit-0")).isEqualTo("ledger-commit");
        assertThat(ThreadCpu.kind("ledger-commit-1")).isEqualTo("ledger-commit");
        assertThat(ThreadCpu.kind("GC Thread#1")).isEqualTo("GC Thread");
        assertThat(ThreadCpu.kind("pool-1-thread-12")).isEqualTo("pool-1-thread");
        assertThat(ThreadCpu.kind("default-eventLo")).isEqualTo("default-eventLo");
        assertThat(ThreadCpu.kind("C2 CompilerThre")).isEqualTo("C2 CompilerThre");
        assertThat(ThreadCpu.kind("42")).isEqualTo("42");
    }

    @Test
    void theTimesAreReadAfterTheNameWhateverItHolds() {
        // utime 1234 and stime 56 are fields 14 and 15; the name holds a space and a ')'.
        String stat = "4242 (odd) name) S 1 4242 4242 0 -1 4194368 100 0 0 0 1234 56 0 0 20 0 1 0 5 0 0";

        assertThat(ThreadCpu.name(stat)).isEqualTo("odd) name");
        assertThat(ThreadCpu.userAndSystem(stat)).containsExactly(1234, 56);
    }

    @Test
    void eachKindIsReportedPerCallBusiestFirstAndTheRestTogether() {
        ThreadCpu before = new ThreadCpu(Map.of("ledger-commit", 100L, "default-eventLo", 50L, "a", 0L));
        ThreadCpu after = new ThreadCpu(Map.of("ledger-commit", 400L, "default-eventLo", 250L, "a", 7L, "b", 6L,
                "c", 5L, "d", 4L, "e", 3L, "f", 2L));

        // 10,000 calls: 300 ticks (3 s) are 300 us a call; 200 ticks 200 us; a, b, c, d shown; e and f together.
        assertThat(after.perCallSince(before, 10_000)).isEqualTo(
                "ledger-commit 300, default-eventLo 200, a 7, b 6, c 5, d 4, the rest 5");
        assertThat(after.perCallSince(new ThreadCpu(Map.of()), 10_000)).isNull();
        assertThat(after.perCallSince(before, 0)).isNull();
    }

    @Test
    void thisProcessIsReadWhereThereIsAProc() {
        ThreadCpu now = ThreadCpu.of(ProcessHandle.current().pid());

        if (new java.io.File("/proc/self/task").isDirectory()) {
            assertThat(now.ticks()).containsKey("VM Thread").allSatisfy((kind, ticks) -> assertThat(ticks)
                    .isNotNegative());
        } else {
            assertThat(now.ticks()).isEmpty();
        }
        assertThat(ThreadCpu.of(-1).ticks()).isEmpty();
    }
}
