package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.testing.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code GET /metrics}: Prometheus's text format for the auditor, and the ledger's meters counting exactly what the
 * requests before the scrape did: admissions, refusals by reason, decision latencies, group commits, the log's
 * committed and integrated sizes, the projections' position and the active sessions.
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class MetricsHttpTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*})?) (\\S+)$",
            Pattern.MULTILINE);

    @Parameter
    TestDatabases.Kind database;

    @TempDir
    Path state;

    @Test
    void theMetersCountWhatTheRequestsDid() throws Exception {
        // Checkpoints only when the test integrates: the integrated size is then exactly what it last integrated.
        try (HttpLedger ledger = HttpLedger.start(database, state, HttpLedger.PRICING_POLICY, 10_000,
                Duration.ofHours(1))) {
            Map<String, Double> before = scrape(ledger);
            String session = ledger.initialize("m-alice");
            ledger.call(session, "m-alice", "q1", "quote").assertStatus(200);
            ledger.call(session, "m-alice", "q2", "quote").assertStatus(200);
            String capability = ledger.call(session, "m-alice", "d1", "discount").assertStatus(200).json()
                    .path("capabilityId").asText();
            ledger.call(session, "m-alice", "e1", "erase").assertStatus(200);
            ledger.call(session, "m-alice", "e2", "erase").assertStatus(200);
            ledger.operator("POST", "/v1/capabilities/" + capability + "/revoke").send().assertStatus(200);
            assertThat(ledger.call(session, "m-alice", "q3", "quote").assertStatus(200).json().path("reason")
                    .path("code").asText()).isEqualTo("capability_revoked");

            // A collection before the scrape: a gauge whose object only Micrometer holds (weakly) would read NaN.
            System.gc();
            Map<String, Double> after = scrape(ledger);
            assertThat(delta(before, after, "ledger_admissions_total")).isEqualTo(3);
            assertThat(delta(before, after, "ledger_refusals_total{reason=\"not_in_scope\"}")).isEqualTo(2);
            assertThat(delta(before, after, "ledger_refusals_total{reason=\"capability_revoked\"}")).isEqualTo(1);
            assertThat(delta(before, after, "ledger_decision_latency_seconds_count")).isEqualTo(6);
            assertThat(delta(before, after, "ledger_decision_latency_seconds_bucket{le=\"+Inf\"}")).isEqualTo(6);
            assertThat(delta(before, after, "ledger_decision_latency_seconds_sum")).isPositive();
            // The calls, and only they, from their first byte read to their answer written: around each decision. An
            // answer is counted once written, which may follow its client's reading it by a moment.
            Map<String, Double> written = eventually(ledger, before, "ledger_call_latency_seconds_count", 6);
            assertThat(delta(before, written, "ledger_call_latency_seconds_bucket{le=\"+Inf\"}")).isEqualTo(6);
            assertThat(delta(before, written, "ledger_call_latency_seconds_sum"))
                    .isGreaterThan(delta(before, written, "ledger_decision_latency_seconds_sum"));
            // One group commit per request, as each was answered before the next was sent: the initialize, six calls
            // and the revocation.
            assertThat(delta(before, after, "ledger_commit_batch_commands_count")).isEqualTo(8);
            assertThat(delta(before, after, "ledger_commit_batch_commands_sum")).isEqualTo(8);
            assertThat(delta(before, after, "ledger_commit_batch_duration_seconds_count")).isEqualTo(8);
            if (database == TestDatabases.Kind.H2) {
                // Every answered call waited for the journal's forced write; the store's series is there from the
                // start.
                assertThat(delta(before, after, "ledger_forced_write_duration_seconds_count{file=\"journal\"}"))
                        .isPositive();
                assertThat(after).containsKey("ledger_forced_write_duration_seconds_count{file=\"store\"}");
                // The store's file as H2 knows it, against its length on the disk read just after the scrape
                // (housekeeping may have written or given back a little meanwhile).
                long onDisk = Files.size(state.resolve("ledger.mv.db"));
                assertThat(after.get("ledger_store_file_bytes")).isPositive()
                        .isCloseTo((double) onDisk, Percentage.withPercentage(25));
                assertThat(after.get("ledger_store_live_percent")).isBetween(1.0, 100.0);
            } else {
                assertThat(after.keySet()).noneMatch(k -> k.startsWith("ledger_forced_write_duration"));
                assertThat(after).doesNotContainKey("ledger_store_file_bytes");
                assertThat(after).doesNotContainKey("ledger_store_live_percent");
            }
            assertThat(after.get("ledger_commit_batches_redecided_total")).isZero();
            assertThat(after.get("ledger_sessions_active")).isEqualTo(1);

            long receipts = ledger.request("GET", "/health").send().assertStatus(200).json().path("receipts").asLong();
            assertThat(after.get("ledger_receipts_committed")).isEqualTo(receipts);
            assertThat(after.get("ledger_projection_position")).isEqualTo(receipts);
            assertThat(after.get("ledger_receipts_integrated")).isLessThan(receipts);
            assertThat(after.keySet()).as("the JVM's meters").anyMatch(k -> k.startsWith("jvm_memory_used_bytes{"));
            // Eight calls answered in between: the JVM allocated for them, and the count never goes back.
            assertThat(delta(before, after, "jvm_threads_allocated_bytes_total")).isPositive();

            ledger.integrate();
            ledger.edge("DELETE", "/v1/sessions/" + session).client(HttpLedger.clientToken("m-alice")).send()
                    .assertStatus(200);
            Map<String, Double> deleted = scrape(ledger);
            assertThat(deleted.get("ledger_receipts_integrated")).isEqualTo(receipts);
            assertThat(deleted.get("ledger_receipts_committed")).isEqualTo(receipts + 1);
            assertThat(deleted.get("ledger_sessions_active")).isZero();
        }
    }

    @Test
    void onlyTheAuditorAndTheOperatorReadTheMetrics(@TempDir Path dir) throws Exception {
        try (HttpLedger ledger = HttpLedger.start(database, dir)) {
            for (String path : new String[] {"/metrics", "/metrics/", "/metrics?format=x", "/./metrics",
                "/v1/../metrics", "/%6detrics"}) {
                assertThat(ledger.request("GET", path).send().status()).as(path).isIn(400, 401, 404);
            }
            ledger.request("GET", "/metrics").send().assertStatus(401);
            assertThat(ledger.edge("GET", "/metrics").send().assertStatus(403).errorCode()).isEqualTo("forbidden");
            Reply reply = ledger.auditor("GET", "/metrics").send().assertStatus(200);
            assertThat(reply.header("Content-Type")).startsWith("text/plain; version=0.0.4");
            assertThat(reply.text()).contains("# HELP ledger_admissions_total ").contains("# TYPE ledger_admissions_total counter");
            ledger.operator("GET", "/metrics").send().assertStatus(200);
        }
    }

    /** Every sample of the auditor's scrape, by its name and labels. */
    private static Map<String, Double> scrape(HttpLedger ledger) throws Exception {
        Reply reply = ledger.auditor("GET", "/metrics").send().assertStatus(200);
        Map<String, Double> samples = new HashMap<>();
        Matcher m = SAMPLE.matcher(reply.text());
        while (m.find()) {
            samples.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return samples;
    }

    /** A scrape in which {@code sample} has grown by {@code expected} since {@code before}, waiting up to 5 s for it. */
    private static Map<String, Double> eventually(HttpLedger ledger, Map<String, Double> before, String sample,
                                                  double expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Map<String, Double> samples = scrape(ledger);
        while (samples.getOrDefault(sample, 0.0) - before.getOrDefault(sample, 0.0) < expected
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
            samples = scrape(ledger);
        }
        assertThat(delta(before, samples, sample)).as(sample).isEqualTo(expected);
        return samples;
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String sample) {
        assertThat(after).as("the scrape has %s", sample).containsKey(sample);
        return after.get(sample) - before.getOrDefault(sample, 0.0);
    }
}
