package io.mcpledger.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ledger's own histograms ({@code GET /metrics} with the auditor's credential) read at the start and the end of a
 * measured window: how much of the latency a load generator sees was spent inside the ledger, from a call's arrival
 * at its controller to its answer being ready (the forced write included), and how long its group commits and forced
 * writes took. Buckets are the ledger's (its metrics' SLO boundaries), so shares are "over N ms", not percentiles.
 * Also the ledger JVM's allocation per receipt committed in the window ({@code jvm_threads_allocated_bytes_total},
 * the JVM's count at each scrape), with the collector's pauses in the window (ZGC pauses three times per cycle).
 */
final class LedgerMeters {
    /** The histograms printed, by their Prometheus names (Micrometer's, in seconds). */
    private static final List<String> HISTOGRAMS = List.of("ledger_call_latency_seconds",
            "ledger_decision_latency_seconds",
            "ledger_commit_batch_duration_seconds", "ledger_forced_write_duration_seconds");
    /** A histogram's bucket: its name, its labels other than {@code le} (a series each), its bound and its count. */
    private static final Pattern BUCKET = Pattern.compile("^(\\w+)_bucket\\{([^}]*?),?le=\"([^\"]+)\",?\\} (\\S+)$",
            Pattern.MULTILINE);
    private static final String ALLOCATED = "jvm_threads_allocated_bytes_total";
    private static final String RECEIPTS = "ledger_receipts_committed";
    /** The collector's pauses: the sum over {@code jvm_gc_pause_seconds_count}'s series (ZGC: three per cycle). */
    private static final String PAUSES = "jvm_gc_pause_seconds_count";
    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(?:\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);
    /** The shares printed: of the observations longer than these, in milliseconds. */
    private static final double[] OVER_MS = {1, 2, 5, 10, 20};

    /** Each histogram's buckets, by series: its name, with its labels but {@code le} in braces when it has any. */
    private final Map<String, TreeMap<Double, Double>> buckets;
    /** Allocated bytes, receipts committed and the collector's pauses, summed over each name's series. */
    private final Map<String, Double> sums;

    private LedgerMeters(Map<String, TreeMap<Double, Double>> buckets, Map<String, Double> sums) {
        this.buckets = buckets;
        this.sums = sums;
    }

    static LedgerMeters scrape(String host, int port, String auditorToken) throws IOException {
        try (HttpLoadGenerator.Http1Connection connection = new HttpLoadGenerator.Http1Connection(host, port)) {
            HttpLoadGenerator.Response answer = connection.exchange(("GET /metrics HTTP/1.1\r\nHost: " + host + ":"
                    + port + "\r\nAuthorization: Bearer " + auditorToken + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            if (answer.status() != 200) {
                throw new IOException("GET /metrics answered " + answer.status() + ": " + answer.text());
            }
            return parse(answer.text());
        }
    }

    static LedgerMeters parse(String text) {
        Map<String, TreeMap<Double, Double>> buckets = new TreeMap<>();
        Matcher m = BUCKET.matcher(text);
        while (m.find()) {
            double le = m.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(3));
            String series = m.group(2).isEmpty() ? m.group(1) : m.group(1) + "{" + m.group(2) + "}";
            buckets.computeIfAbsent(series, k -> new TreeMap<>()).put(le, Double.parseDouble(m.group(4)));
        }
        Map<String, Double> sums = new TreeMap<>();
        Matcher sample = SAMPLE.matcher(text);
        while (sample.find()) {
            String name = sample.group(1);
            if (name.equals(ALLOCATED) || name.equals(RECEIPTS) || name.equals(PAUSES)) {
                sums.merge(name, Double.parseDouble(sample.group(2)), Double::sum);
            }
        }
        return new LedgerMeters(buckets, sums);
    }

    /**
     * One line per histogram's series: observations between {@code before} and this, and the shares over 1 to 20 ms.
     */
    String since(LedgerMeters before) {
        StringBuilder out = new StringBuilder();
        for (String histogram : HISTOGRAMS) {
            for (Map.Entry<String, TreeMap<Double, Double>> series : buckets.entrySet()) {
                String name = series.getKey();
                if (name.equals(histogram) || name.startsWith(histogram + "{")) {
                    since(name, series.getValue(), before.buckets.getOrDefault(name, new TreeMap<>()), out);
                }
            }
        }
        double receipts = sums.getOrDefault(RECEIPTS, 0.0) - before.sums.getOrDefault(RECEIPTS, 0.0);
        if (sums.containsKey(ALLOCATED) && receipts > 0) {
            double allocated = sums.get(ALLOCATED) - before.sums.getOrDefault(ALLOCATED, 0.0);
            double pauses = sums.getOrDefault(PAUSES, 0.0) - before.sums.getOrDefault(PAUSES, 0.0);
            out.append(String.format(Locale.ROOT, "  allocated: %,.0f MB, %,.1f KB per receipt committed (%,.0f receipts,"
                    + " %,.0f GC pauses)%n", allocated / 1e6, allocated / receipts / 1e3, receipts, pauses));
        }
        return out.toString();
    }

    /** One series' line: its observations between {@code then} and {@code now}, and the shares over 1 to 20 ms. */
    private static void since(String name, TreeMap<Double, Double> now, TreeMap<Double, Double> then,
                              StringBuilder out) {
        double total = now.lastEntry().getValue() - then.getOrDefault(now.lastKey(), 0.0);
        out.append(String.format(Locale.ROOT, "  %s: %,.0f", name.replace("_seconds", ""), total));
        for (double ms : OVER_MS) {
            double le = ms / 1000;
            if (!now.containsKey(le) || total == 0) {
                continue;
            }
            double within = now.get(le) - then.getOrDefault(le, 0.0);
            double over = 100 * (total - within) / total;
            out.append(String.format(Locale.ROOT, ", over %s ms %.2f%%", label(ms), over));
        }
        out.append('\n');
    }

    /** 1 as "1", 0.5 as "0.5". */
    private static String label(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }
}
