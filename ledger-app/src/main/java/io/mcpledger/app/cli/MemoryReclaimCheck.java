package io.mcpledger.app.cli;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Whether the kernel reclaims idle memory in a way that costs a ZGC heap the ledger's latency, said once at start.
 *
 * <p>Some virtual machines run DAMON with a {@code pageout} scheme ({@code kdamond} in {@code ps}): memory idle for a
 * while is paged out. ZGC (JDK 17) keeps the heap in shared memory mapped at several addresses, and the kernel's
 * reclaim unmaps shared pages even with no swap to write them to; on such a host the ledger under ZGC answered with
 * a p99 of 100 ms and more at 1,000 admissions/s, and {@code kdamond} used about six times the CPU it used beside G1
 * with transparent huge pages, whose heap is private memory, which reclaim without swap cannot page out and leaves
 * mapped (benchmarks.md, section 8, "The host's memory reclaim and the collector"). Shenandoah's heap is private
 * memory too, and below saturation it kept the tail's end shorter than G1 on such a host (section 8, "Shenandoah, and
 * what else sits under the 1,000/s tail").
 *
 * <p>DAMON's sysfs files say what each monitor does, but only to root. A ledger that cannot read them (not root)
 * looks for a {@code kdamond} thread among the processes instead, and if one runs says that it may page out memory.
 * With neither, or with the files saying no monitor pages out, nothing is said.
 */
final class MemoryReclaimCheck {
    /** Where the kernel lists DAMON's monitoring threads. */
    static final Path KDAMONDS = Path.of("/sys/kernel/mm/damon/admin/kdamonds");
    private static final Path PROC = Path.of("/proc");
    /** Why it matters and what to run instead, the end of either warning. */
    private static final String WHY = "ZGC's heap is shared memory that such reclaim unmaps, and on such a host the"
            + " ledger's p99 at 1,000 admissions/s under ZGC was four to five times its p99 under -XX:+UseG1GC"
            + " -XX:+UseTransparentHugePages; consider those, or -XX:+UseShenandoahGC in place of -XX:+UseG1GC while"
            + " the load stays well below saturation (docs/operations.md, \"JVM options\")";

    /** Reads one of DAMON's files: a seam for the tests, which cannot count on being refused a file (root never is). */
    @FunctionalInterface
    interface FileReader {
        String read(Path file) throws IOException;
    }

    private MemoryReclaimCheck() {
    }

    /** The warning for this JVM's collectors and this host, if it needs one. */
    static Optional<String> warning() {
        List<String> collectors = new ArrayList<>();
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.add(collector.getName());
        }
        return warning(KDAMONDS, PROC, collectors, MemoryReclaimCheck::read);
    }

    /**
     * The warning when one of {@code collectors} is ZGC's and either a DAMON monitor under {@code kdamonds} is on with
     * a {@code pageout} scheme, or DAMON's files cannot be read and a {@code kdamond} thread is among the processes
     * under {@code proc}; else empty.
     */
    static Optional<String> warning(Path kdamonds, Path proc, Collection<String> collectors, FileReader reader) {
        if (collectors.stream().noneMatch(name -> name.startsWith("ZGC"))) {
            return Optional.empty();
        }
        List<String> reclaiming = new ArrayList<>();
        try {
            for (Path daemon : subdirectories(kdamonds)) {
                if ("on".equals(reader.read(daemon.resolve("state"))) && pagesOut(daemon, reader)) {
                    reclaiming.add(daemon.getFileName().toString());
                }
            }
        } catch (AccessDeniedException e) {
            return kdamondRuns(proc) ? Optional.of("a DAMON monitor (kdamond) runs on this host, and only root can read"
                    + " whether it pages out idle memory; if it does, this host suits this JVM's ZGC less: " + WHY)
                    : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        if (reclaiming.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("the kernel pages out idle memory (DAMON, kdamond " + String.join(", ", reclaiming)
                + ") and this JVM runs ZGC: " + WHY);
    }

    /** True when a context of {@code daemon} has a scheme whose action is {@code pageout}. */
    private static boolean pagesOut(Path daemon, FileReader reader) throws IOException {
        for (Path context : subdirectories(daemon.resolve("contexts"))) {
            for (Path scheme : subdirectories(context.resolve("schemes"))) {
                if ("pageout".equals(reader.read(scheme.resolve("action")))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The directories in {@code directory}, none if it is not one; a directory that cannot be listed throws. */
    private static List<Path> subdirectories(Path directory) throws IOException {
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(directory)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, Files::isDirectory)) {
                entries.forEach(found::add);
            }
        }
        return found;
    }

    /** True when a process under {@code proc} (kernel threads are listed there too) is named {@code kdamond...}. */
    private static boolean kdamondRuns(Path proc) {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, p -> p.getFileName().toString()
                .chars().allMatch(Character::isDigit))) {
            for (Path process : processes) {
                try {
                    if (read(process.resolve("comm")).startsWith("kdamond")) {
                        return true;
                    }
                } catch (IOException e) {
                    // the process ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    private static String read(Path file) throws IOException {
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.US_ASCII).strip() : "";
    }
}
