package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JCS of the receipts of the vectors (the trees an admission writes: its receipt, the session view the projections
 * store). Run as benchmarks.md section 8 says ("JCS strings written whole"): {@code java -cp
 * ledger-domain/target/test-classes:ledger-domain/target/classes:$(cat ledger-domain/cp.txt) org.openjdk.jmh.Main
 * CanonicalBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CanonicalBenchmark {
    private final List<JsonNode> receipts = LedgerVectors.receipts();

    /** All the vectors' receipts (six) written once; divide by six for one. */
    @Benchmark
    public int receiptsOfTheVectors() {
        int length = 0;
        for (JsonNode receipt : receipts) {
            length += Canonical.jcs(receipt).length();
        }
        return length;
    }
}
