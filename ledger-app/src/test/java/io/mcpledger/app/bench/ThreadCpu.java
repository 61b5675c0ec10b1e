package io.mcpledger.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A process's CPU by kind of thread, read from Linux's {@code /proc/PID/task/TID/stat}: user and system clock ticks
 * of each thread, summed over the threads whose names differ only in a trailing number ({@code ledger-commit-0} and
 * {@code ledger-commit-1} are {@code ledger-commit}). Two readings give what each kind spent in between: on a host
 * whose speed drifts between runs, the share of one kind against another in the same run is what compares.
 */
record ThreadCpu(Map<String, Long> ticks) {
    /** Linux's USER_HZ, the unit of the stat file's times, on every architecture the JDK runs on. */
    private static final long TICKS_PER_SECOND = 100;
    private static final int SHOWN = 6;

    /** The threads of {@code pid} now; empty where there is no /proc (or the process is gone). */
    static ThreadCpu of(long pid) {
        Map<String, Long> ticks = new HashMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : threads.toList()) {
                try {
                    String stat = Files.readString(thread.resolve("stat"));
                    long[] times = userAndSystem(stat);
                    ticks.merge(kind(name(stat)), times[0] + times[1], Long::sum);
                } catch (IOException | RuntimeException e) {
                    // The thread ended between the listing and the read: its time is lost to both readings.
                }
            }
        } catch (IOException e) {
            return new ThreadCpu(Map.of());
        }
        return new ThreadCpu(ticks);
    }

    /** The thread's name: what stands between the first '(' and the last ')' (a name may hold either). */
    static String name(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /**
     * Fields 14 and 15 of a process's or a thread's stat line, utime and stime in clock ticks, counted after the name:
     * the field after it is field 3, so they are the 12th and 13th.
     */
    static long[] userAndSystem(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(after[11]), Long.parseLong(after[12])};
    }

    /** A name without its trailing number and what separates it: "GC Thread#1" is "GC Thread". */
    static String kind(String name) {
        int end = name.length();
        while (end > 0 && Character.isDigit(name.charAt(end - 1))) {
            end--;
        }
        while (end > 0 && end < name.length() && "-#_ ".indexOf(name.charAt(end - 1)) >= 0) {
            end--;
        }
        return end == 0 ? name : name.substring(0, end);
    }

    /**
     * What each kind spent since {@code before}, in microseconds per call over {@code calls}: the {@value #SHOWN}
     * kinds that spent most, then the rest together; null when there is nothing to compare.
     */
    String perCallSince(ThreadCpu before, long calls) {
        if (ticks.isEmpty() || before.ticks.isEmpty() || calls <= 0) {
            return null;
        }
        List<Map.Entry<String, Long>> spent = new ArrayList<>();
        for (Map.Entry<String, Long> kind : ticks.entrySet()) {
            long delta = kind.getValue() - before.ticks.getOrDefault(kind.getKey(), 0L);
            if (delta > 0) {
                spent.add(Map.entry(kind.getKey(), delta));
            }
        }
        spent.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        StringBuilder line = new StringBuilder();
        long rest = 0;
        for (int i = 0; i < spent.size(); i++) {
            if (i < SHOWN) {
                line.append(i == 0 ? "" : ", ").append(spent.get(i).getKey()).append(' ')
                        .append(micros(spent.get(i).getValue(), calls));
            } else {
                rest += spent.get(i).getValue();
            }
        }
        if (rest > 0) {
            line.append(", the rest ").append(micros(rest, calls));
        }
        return line.toString();
    }

    private static String micros(long ticks, long calls) {
        return String.format(Locale.ROOT, "%.0f", ticks * 1e6 / TICKS_PER_SECOND / calls);
    }
}
