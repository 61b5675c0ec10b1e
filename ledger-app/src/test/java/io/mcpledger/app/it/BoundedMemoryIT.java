package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's live heap depends on its live state, not on its history (contract section 13): the real jar, with a small
 * heap, serves calls with outcomes on a fixed set of sessions, and the heap left after a full collection once the log
 * holds many receipts is no larger than it was at a quarter of them. The caches are made small ({@code --cache-sessions},
 * {@code --cache-calls}, {@code --cache-tiles}, {@code --store-cache-mb}), so that they are full before the first
 * measure and what grows after it is something else. The live heap is what jcmd's class histogram counts after its own
 * full collection: the heap's "used" figure after a collection also counts what the ledger's threads allocated since
 * (once 18.6 MB of growth where the two histograms differed by 6.5 MB). CI's version of the benchmark run of
 * docs/benchmarks.md (millions of receipts under {@code -Xmx256m}); {@code -Dmemory.calls=N} makes it longer.
 */
class BoundedMemoryIT {
    private static final int CALLS = Integer.getInteger("memory.calls", 80_000);
    private static final int SESSIONS = 100;
    private static final int THREADS = 8;
    /**
     * Slack for buffers that grow to their bound at their own pace: H2 keeps a write buffer of up to 4 MB for reuse,
     * Netty its pooled buffers.
     */
    private static final long SLACK_BYTES = 8L * 1024 * 1024;
    /** A class histogram row: rank, instances, bytes, class name. */
    private static final Pattern HISTOGRAM_ROW = Pattern.compile("(?m)^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");
    private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");

    @TempDir
    Path work;

    @Test
    void theLiveHeapStaysFlatWhileTheLogGrows() throws Exception {
        Files.writeString(work.resolve("policy.yaml"), """
                capabilities:
                  default:
                    tools:
                      - {server: pricing, tool: quote, operations: [invoke], ttl: 86400}
                """);
        try (LedgerProcess ledger = LedgerProcess.serve(work, List.of("-Xmx96m", "-XX:+UseSerialGC"),
                "--policy", "policy.yaml", "--cache-sessions", "200", "--cache-calls", "2000", "--cache-tiles", "16", "--store-cache-mb", "1")) {
            String edge = LedgerProcess.token(work, "edge");
            List<String[]> sessions = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                String token = Sha256.hexOfUtf8("memory-client-" + s);
                HttpResponse<String> created = ledger.post("/v1/sessions", edge, token,
                        "{\"principal\":\"p-" + s + "\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                sessions.add(new String[] {Canonical.parse(created.body()).path("session").path("id").asText(), token});
            }
            AtomicLong next = new AtomicLong();
            call(ledger, edge, sessions, next, CALLS / 4);
            Heap early = liveHeap(ledger);
            long receiptsEarly = receipts(ledger);
            call(ledger, edge, sessions, next, CALLS);
            Heap late = liveHeap(ledger);
            long receiptsLate = receipts(ledger);

            String grew = grewMost(early.byClass(), late.byClass());
            System.out.printf("live heap after a full collection: %d KB at %d receipts, %d KB at %d; grew most:%n%s",
                    early.total() / 1024, receiptsEarly, late.total() / 1024, receiptsLate, grew);
            assertThat(receiptsLate).isGreaterThanOrEqualTo(2L * CALLS);
            assertThat(late.total()).as("live heap after a full collection at %d receipts (%d KB) and at %d (%d KB);"
                    + " grew most:%n%s", receiptsEarly, early.total() / 1024, receiptsLate, late.total() / 1024, grew)
                    .isLessThanOrEqualTo(early.total() + SLACK_BYTES);
            assertThat(ledger.get("/health").statusCode()).isEqualTo(200);
        }
    }

    /** Calls until {@code until} calls were made in all, each admitted and then given an outcome. */
    private static void call(LedgerProcess ledger, String edge, List<String[]> sessions, AtomicLong next, long until)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
                for (long n = next.getAndIncrement(); n < until; n = next.getAndIncrement()) {
                    String[] session = sessions.get((int) (n % sessions.size()));
                    String request = "m-" + n;
                    HttpResponse<String> admitted = ledger.post("/v1/sessions/" + session[0] + "/calls", edge,
                            session[1], "{\"requestId\":\"" + request + "\",\"server\":\"pricing\",\"tool\":\"quote\","
                                    + "\"operation\":\"invoke\",\"argumentsSha256\":\"" + "ab".repeat(32) + "\"}");
                    JsonNode answer = Canonical.parse(admitted.body());
                    assertThat(answer.path("decision").asText()).as(admitted.body()).isEqualTo("admitted");
                    HttpResponse<String> outcome = ledger.post("/v1/sessions/" + session[0] + "/calls/" + request
                            + "/outcome", edge, session[1], "{\"status\":\"ok\"}");
                    assertThat(outcome.statusCode()).as(outcome.body()).isEqualTo(200);
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
    }

    private static long receipts(LedgerProcess ledger) throws Exception {
        return Canonical.parse(ledger.get("/health").body()).path("receipts").asLong();
    }

    /** The live heap in bytes, in all and per class. */
    private record Heap(long total, Map<String, Long> byClass) {}

    /** The objects left after a full collection of the ledger's JVM, as jcmd's class histogram counts them. */
    private static Heap liveHeap(LedgerProcess ledger) throws Exception {
        String histogram = jcmd(ledger, "GC.class_histogram");
        Map<String, Long> bytes = new HashMap<>();
        Matcher row = HISTOGRAM_ROW.matcher(histogram);
        while (row.find()) {
            bytes.merge(row.group(2), Long.parseLong(row.group(1)), Long::sum);
        }
        Matcher total = TOTAL.matcher(histogram);
        assertThat(total.find()).as("a Total line in jcmd's class histogram:%n%s", histogram).isTrue();
        assertThat(bytes).as("rows in jcmd's class histogram:%n%s", histogram).isNotEmpty();
        return new Heap(Long.parseLong(total.group(1)), bytes);
    }

    /** The classes whose instances grew most between two histograms, for the failure message. */
    private static String grewMost(Map<String, Long> early, Map<String, Long> late) {
        StringBuilder out = new StringBuilder();
        late.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - early.getOrDefault(e.getKey(), 0L)))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(15)
                .forEach(e -> out.append(String.format("  %+,d B %s%n", e.getValue(), e.getKey())));
        return out.toString();
    }

    private static String jcmd(LedgerProcess ledger, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(ledger.process.pid()), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
