package io.mcpledger.domain.receipt;

import io.mcpledger.domain.crypto.SigningKey;
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
 * What a commit worker spends to sign a receipt: the vectors' six receipts signed from their drafts (the tree built,
 * its JCS, Ed25519, the line), against Ed25519 alone over inputs of the same sizes. Run as benchmarks.md section 8
 * says ("What signing a receipt costs"): {@code java -cp
 * ledger-domain/target/test-classes:ledger-domain/target/classes:$(cat ledger-domain/cp.txt) org.openjdk.jmh.Main
 * ReceiptSignerBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReceiptSignerBenchmark {
    private final SigningKey key = SigningKey.fromSeed(LedgerVectors.seed());
    private final ReceiptSigner signer = new ReceiptSigner(key, LedgerVectors.origin());
    private final List<ReceiptDraft> drafts = LedgerVectors.receipts().stream()
            .map(v -> LedgerVectors.draftOf(v.get("receipt"))).toList();
    private final List<byte[]> inputs = drafts.stream().map(d -> signer.sign(d).signingInput()).toList();

    /** The six drafts signed into receipts; divide by six for one. */
    @Benchmark
    public int signTheVectors() {
        int length = 0;
        for (ReceiptDraft draft : drafts) {
            length += signer.sign(draft).line().length();
        }
        return length;
    }

    /** Ed25519 alone over the six signing inputs: what {@link #signTheVectors()} cannot go below. */
    @Benchmark
    public int ed25519Alone() {
        int first = 0;
        for (byte[] input : inputs) {
            first += key.sign(input)[0];
        }
        return first;
    }
}
