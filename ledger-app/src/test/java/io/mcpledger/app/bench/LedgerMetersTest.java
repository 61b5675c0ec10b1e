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
    void histogramsTheLedgerDoesNotHaveArePassedOver() {
        LedgerMeters none = LedgerMeters.parse("ledger_receipts_committed 5.0\n");

        assertThat(none.since(none)).isEmpty();
    }
}
