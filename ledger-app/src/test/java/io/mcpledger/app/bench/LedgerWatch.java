package io.mcpledger.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What {@link HttpLoadGenerator}'s soak watches in the ledger's process beside its HTTP answers: the heap after
 * garbage collection, the warnings and errors in its output, and the size of its state directory.
 *
 * <p><b>Heap after GC, from the GC log</b> ({@code --live-heap gclog}, the default for a spawned ledger): the ledger is
 * started with {@link #xlogOption} ({@code -Xlog:gc,gc+heap,gc+init:file=...}), which costs it one short line or a
 * few per collection and changes nothing else, and the generator reads the new lines once a minute. Each collection's
 * summary line ({@code Pause Young ... 106M->41M(256M)} for G1, Serial and Parallel, {@code Garbage Collection (...)
 * 124M(48%)->54M(21%)} for ZGC) gives the heap after that collection; the minute reports the minimum and the last of
 * them. What is live is known exactly only at some collections: ZGC logs the bytes its marking found live (the
 * {@code Live:} row of its {@code gc,heap} table), and after a full collection ({@code Pause Full}) of G1, Serial or
 * Parallel the heap holds only live objects. Caveats: a young collection of G1, Serial or Parallel leaves the old
 * generation's garbage in place, so the heap after it is only an upper bound on the live heap (it drops when G1
 * finishes a concurrent cycle and its mixed collections, or at a full collection); ZGC's "after" figure includes what
 * was allocated during the concurrent cycle, so its {@code Live} figure is the one to read (it is what was reachable
 * when marking ended, which includes requests in flight); the log's unit is a whole megabyte; a minute without a
 * collection has no figure; a JDK 21 generational ZGC logs young and old live bytes apart, which this does not read.
 *
 * <p><b>Heap after a forced GC, by jcmd</b> ({@code --live-heap jcmd}, the default for a ledger given by
 * {@code --ledger-pid}): at every minute boundary {@code jcmd PID GC.run} (a {@code System.gc()}: a stop-the-world
 * full collection with G1, Serial and Parallel, whose pause shows in the next minute's latency; a concurrent cycle
 * with ZGC), then {@code jcmd PID GC.heap_info}, whose {@code used} is then the live heap (for ZGC, plus what was
 * allocated during the cycle; when the ledger's GC log is followed too, its figure for the forced collection is used
 * instead). Exact at the cost of one forced collection a minute and a short-lived jcmd JVM (about half a second of
 * CPU, not counted as the generator's).
 */
final class LedgerWatch {
    private static final Pattern SUMMARY = Pattern.compile(
            "GC\\(\\d+\\) (.*?) (\\d+)([BKMGT])(?:\\(\\d+%\\))?->(\\d+)([BKMGT])(?:\\(\\d+%\\))?");
    private static final Pattern ZGC_LIVE = Pattern.compile("GC\\(\\d+\\)\\s+Live:\\s+-\\s+(\\d+)([BKMGT])");
    private static final Pattern USING = Pattern.compile("\\] Using (.+)$");
    private static final Pattern MAX_CAPACITY = Pattern.compile("(?<!Soft )Max Capacity: (\\d+)([BKMGT])");
    private static final Pattern HEAP_INFO_USED = Pattern.compile("used (\\d+)([BKMGT])\\b");
    private static final Pattern LOG_LEVEL = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (WARN|ERROR)\\b");

    private LedgerWatch() {
    }

    /** The {@code -Xlog} option that lets {@link GcLog} follow a ledger's collections in {@code file}. */
    static String xlogOption(Path file) {
        return "-Xlog:gc,gc+heap,gc+init:file=" + file + ":uptime,level,tags:filecount=0";
    }

    /**
     * The heap after GC in one minute: {@code collections} seen, the minimum and the last heap after a collection,
     * and the live heap where something measured it exactly ({@code liveFrom} says what), -1 where unknown.
     */
    record Heap(int collections, long afterMin, long afterLast, long live, String liveFrom) {
        static final Heap UNKNOWN = new Heap(0, -1, -1, -1, "");

        /** The live heap if known, else the smallest heap after a collection (an upper bound), else -1. */
        long best() {
            return live >= 0 ? live : afterMin;
        }
    }

    // ---------------------------------------------------------------- the GC log

    /** Follows a GC log written with {@link #xlogOption}; {@link #read} says what the lines since the last read say. */
    static final class GcLog {
        private final Tail tail;
        private String collector = "";
        private long maxHeap = -1;

        GcLog(Path file) {
            tail = new Tail(file);
        }

        /** The collector the log names ({@code Using G1}, {@code Using The Z Garbage Collector}), once seen. */
        String collector() {
            return collector;
        }

        /** The maximum heap the log states ({@code Max Capacity}), -1 until seen. */
        long maxHeap() {
            return maxHeap;
        }

        Heap read() {
            int collections = 0;
            long afterMin = -1;
            long afterLast = -1;
            long live = -1;
            String liveFrom = "";
            for (String line : tail.lines()) {
                Matcher using = USING.matcher(line);
                if (line.contains("[gc") && using.find()) {
                    collector = using.group(1).trim();
                    continue;
                }
                Matcher max = MAX_CAPACITY.matcher(line);
                if (max.find()) {
                    maxHeap = bytes(max.group(1), max.group(2));
                    continue;
                }
                Matcher zLive = ZGC_LIVE.matcher(line);
                if (zLive.find()) {
                    live = bytes(zLive.group(1), zLive.group(2));
                    liveFrom = "ZGC mark";
                    continue;
                }
                if (line.contains("[gc,heap")) {
                    continue;
                }
                Matcher summary = SUMMARY.matcher(line);
                if (summary.find()) {
                    long after = bytes(summary.group(4), summary.group(5));
                    collections++;
                    afterMin = afterMin < 0 ? after : Math.min(afterMin, after);
                    afterLast = after;
                    if (summary.group(1).startsWith("Pause Full")) {
                        live = after;
                        liveFrom = "full GC";
                    }
                }
            }
            return new Heap(collections, afterMin, afterLast, live, liveFrom);
        }
    }

    // ---------------------------------------------------------------- jcmd

    /**
     * {@code jcmd pid GC.run}, then {@code jcmd pid GC.heap_info}: the heap used right after a forced collection, the
     * sum of the {@code used} figures of the heap's lines (Metaspace left out). With {@code gcLog} (the same ledger's
     * log) the collections of the minute come from there, and so does the live figure when the forced collection
     * logged one (ZGC's marking, a full collection).
     */
    static Heap forcedGc(long pid, GcLog gcLog) {
        String run = jcmd(pid, "GC.run");
        String info = jcmd(pid, "GC.heap_info");
        long used = -1;
        for (String line : info.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("Metaspace") || trimmed.startsWith("class space")) {
                continue;
            }
            Matcher m = HEAP_INFO_USED.matcher(trimmed);
            if (m.find()) {
                used = Math.max(used, 0) + bytes(m.group(1), m.group(2));
            }
        }
        if (used < 0) {
            System.err.println("jcmd " + pid + " GC.heap_info: no 'used' figure in: " + (run + info).strip());
        }
        Heap logged = gcLog == null ? Heap.UNKNOWN : gcLog.read();
        if (logged.live() >= 0) {
            return logged;
        }
        return new Heap(logged.collections(), logged.afterMin(), logged.afterLast(), used,
                used < 0 ? "" : "jcmd GC.run");
    }

    private static String jcmd(long pid, String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        List<String> line = List.of(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", Long.toString(pid), command);
        try {
            Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "jcmd failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "jcmd interrupted";
        }
    }

    // ---------------------------------------------------------------- the ledger's output

    /** Counts the ledger's {@code WARN} and {@code ERROR} lines (its logback pattern) and keeps the first few. */
    static final class Output {
        private final Tail tail;
        private final List<String> firstProblems = new ArrayList<>();
        private long warnings;
        private long errors;

        Output(Path file) {
            tail = new Tail(file);
        }

        /** WARN and ERROR lines since the last call: {@code {warnings, errors}}. */
        long[] read() {
            long w = 0;
            long e = 0;
            for (String line : tail.lines()) {
                Matcher m = LOG_LEVEL.matcher(line);
                if (!m.find()) {
                    continue;
                }
                if (m.group(1).equals("WARN")) {
                    w++;
                } else {
                    e++;
                }
                if (firstProblems.size() < 10) {
                    firstProblems.add(line.length() > 400 ? line.substring(0, 400) + "..." : line);
                }
            }
            warnings += w;
            errors += e;
            return new long[] {w, e};
        }

        List<String> firstProblems() {
            return firstProblems;
        }

        long warnings() {
            return warnings;
        }

        long errors() {
            return errors;
        }
    }

    // ---------------------------------------------------------------- the state directory

    /** Bytes of {@code dir/ledger.mv.db} and of every regular file under {@code dir}; -1 when absent. */
    static long[] diskUse(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return new long[] {-1, -1};
        }
        long db = -1;
        try {
            db = Files.size(dir.resolve("ledger.mv.db"));
        } catch (IOException e) {
            // Not created yet, or the ledger just replaced it.
        }
        long total = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                try {
                    BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                    if (a.isRegularFile()) {
                        total += a.size();
                    }
                } catch (IOException e) {
                    // Deleted while walking (a temporary file): it no longer takes space.
                }
            }
        } catch (IOException | UncheckedIOException e) {
            total = -1;
        }
        return new long[] {db, total};
    }

    // ---------------------------------------------------------------- following a file

    /**
     * The complete lines appended to a file since the last call. If the file was replaced (another inode) or
     * truncated, it starts again from the beginning of the new one; a line not yet ended waits for its end.
     */
    static final class Tail {
        private final Path file;
        private Object fileKey;
        private long offset;
        private byte[] partial = new byte[0];

        Tail(Path file) {
            this.file = file;
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
                long size = channel.size();
                if (!Objects.equals(key, fileKey) || size < offset) {
                    fileKey = key;
                    offset = 0;
                    partial = new byte[0];
                }
                long available = Math.min(size - offset, 64L << 20); // At most 64 MiB a read; the rest next time.
                if (available <= 0) {
                    return lines;
                }
                ByteBuffer buffer = ByteBuffer.allocate((int) available);
                while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
                    // Read until the buffer is full or the file ends.
                }
                offset += buffer.position();
                byte[] read = new byte[partial.length + buffer.position()];
                System.arraycopy(partial, 0, read, 0, partial.length);
                System.arraycopy(buffer.array(), 0, read, partial.length, buffer.position());
                int start = 0;
                for (int i = 0; i < read.length; i++) {
                    if (read[i] == '\n') {
                        lines.add(new String(read, start, i - start, StandardCharsets.UTF_8));
                        start = i + 1;
                    }
                }
                partial = java.util.Arrays.copyOfRange(read, start, read.length);
            } catch (NoSuchFileException e) {
                // Not written yet.
            } catch (IOException e) {
                System.err.println("reading " + file + ": " + e);
            }
            return lines;
        }
    }

    // ---------------------------------------------------------------- units

    static long bytes(String number, String unit) {
        long n = Long.parseLong(number);
        return switch (unit) {
            case "K" -> n << 10;
            case "M" -> n << 20;
            case "G" -> n << 30;
            case "T" -> n << 40;
            default -> n;
        };
    }

    /** 1,234 B, 12.3 KB, 412 MB, 2.16 GB (decimal units, as the benchmarks page writes them). */
    static String size(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        if (bytes < 1_000) {
            return bytes + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = bytes;
        int u = -1;
        while (v >= 1_000 && u < units.length - 1) {
            v /= 1_000;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
    }
}
