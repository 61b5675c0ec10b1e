package io.mcpledger.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LedgerMetersTest {
    private static String scrape(long within1ms, long within5ms, long total) {
        return "# TYPE ledger_decision_latency_seconds histogram\n"
                + "ledger_decision_latency_seconds_bucket{le=\"0.001\",} " + within1ms + ".0\n"
                + "ledger_decision_latency_seconds_bucket{le=\"0.005\",} " + within5ms + ".0\n"
                + "ledger_decision_latency_seconds_bucket{le=\"+Inf\",} " + total + ".0\n"
                + "ledger_decision_latency_seconds_count " + total + ".0\n";
    }

    @Test
    void sharesAreOfTheObservationsBetweenTheTwoScrapes() {
        LedgerMeters before = LedgerMeters.parse(scrape(90, 95, 100));
        LedgerMeters after = LedgerMeters.parse(scrape(890, 975, 1100));

        // 1,000 observations in between: 800 within 1 ms, 880 within 5 ms.
        assertThat(after.since(before)).isEqualTo(
                "  ledger_decision_latency: 1,000, over 1 ms 20.00%, over 5 ms 12.00%\n");
    }

    @Test
    void allocationIsPerReceiptCommittedInBetweenSummedOverEachSeries() {
        String gcBefore = "jvm_gc_pause_seconds_count{action=\"end of GC pause\",cause=\"Warmup\",gc=\"ZGC Pauses\"} 3.0\n"
                + "jvm_gc_pause_seconds_count{action=\"end of GC pause\",cause=\"Allocation Rate\",gc=\"ZGC Pauses\"} 7.0\n";
        LedgerMeters before = LedgerMeters.parse(gcBefore + "jvm_threads_allocated_bytes_total 1.0E9\n"
                + "ledger_receipts_committed 1000.0\n");
        LedgerMeters after = LedgerMeters.parse(gcBefore.replace("7.0", "12.0")
                + "jvm_threads_allocated_bytes_total 2.2E9\nledger_receipts_committed 21000.0\n");

        // 1.2 GB over 20,000 receipts, with 5 pauses.
        assertThat(after.since(before)).isEqualTo(
                "  allocated: 1,200 MB, 60.0 KB per receipt committed (20,000 receipts, 5 GC pauses)\n");
    }

    @Test
    void aHistogramWithLabelsHasALineForEachSeries() {
        String before = "ledger_forced_write_duration_seconds_bucket{file=\"journal\",le=\"0.001\"} 10.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"journal\",le=\"+Inf\"} 10.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"store\",le=\"0.001\"} 0.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"store\",le=\"+Inf\"} 1.0\n";
        String after = "ledger_forced_write_duration_seconds_bucket{file=\"journal\",le=\"0.001\"} 100.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"journal\",le=\"+Inf\"} 110.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"store\",le=\"0.001\"} 1.0\n"
                + "ledger_forced_write_duration_seconds_bucket{file=\"store\",le=\"+Inf\"} 5.0\n";

        // The journal: 100 in between, 90 within 1 ms; the store: 4, 1 within 1 ms.
        assertThat(LedgerMeters.parse(after).since(LedgerMeters.parse(before))).isEqualTo(
                "  ledger_forced_write_duration{file=\"journal\"}: 100, over 1 ms 10.00%\n"
                        + "  ledger_forced_write_duration{file=\"store\"}: 4, over 1 ms 75.00%\n");
    }

    @Test
    void histogramsTheLedgerDoesNotHaveArePassedOver() {
        LedgerMeters none = LedgerMeters.parse("ledger_receipts_committed 5.0\n");

        assertThat(none.since(none)).isEmpty();
    }
}
