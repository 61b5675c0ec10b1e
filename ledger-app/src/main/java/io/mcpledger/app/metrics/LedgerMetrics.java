package io.mcpledger.app.metrics;

import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.storage.ForcedWrites;
import io.mcpledger.app.storage.StoreFile;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The ledger's own meters, which {@code GET /metrics} shows in Prometheus's text format beside the JVM's (operations.md,
 * Metrics). The engine knows nothing of Micrometer: this records what the HTTP layer decides and what the command bus
 * and the forced writes report through their observers, and reads the rest from the engine when scraped.
 */
public final class LedgerMetrics {
    /** Bucket bounds of the admission latency histogram: the targets (5 ms, 20 ms) and a wide tail. */
    private static final Duration[] LATENCY_BUCKETS = {
        ms(0.5), ms(1), ms(2), ms(5), ms(10), ms(20), ms(50), ms(100), ms(200), ms(500), ms(1000), ms(2000), ms(5000)};
    private static final Duration[] WRITE_BUCKETS = {
        ms(0.1), ms(0.25), ms(0.5), ms(1), ms(2), ms(5), ms(10), ms(20), ms(50), ms(100), ms(500)};

    private final MeterRegistry registry;
    private final Counter admissions;
    private final ConcurrentMap<String, Counter> refusals = new ConcurrentHashMap<>();
    private final Timer decisionLatency;
    private final Timer callLatency;

    public LedgerMetrics(MeterRegistry registry, LedgerEngine ledger) {
        this.registry = registry;
        admissions = Counter.builder("ledger.admissions")
                .description("Tool calls admitted (answers of POST .../calls that admitted, repeats of a requestId"
                        + " included)")
                .register(registry);
        decisionLatency = Timer.builder("ledger.decision.latency")
                .description("From a tool call's arrival to its decision being ready to send, the forced write of its"
                        + " receipt included (admitted and refused calls)")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        callLatency = Timer.builder("ledger.call.latency")
                .description("From the read that brought a tool call's first byte to the write of its answer's last"
                        + " byte: the decision's latency and the HTTP path around it (every POST .../calls answered)")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);

        DistributionSummary batchSize = DistributionSummary.builder("ledger.commit.batch.commands")
                .description("Commands per group commit (one transaction, one forced write)")
                .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64)
                .register(registry);
        Timer commitTime = Timer.builder("ledger.commit.batch.duration")
                .description("A group commit: the transaction's commit and forced write, and the fold of its receipts"
                        + " into the projections")
                .serviceLevelObjectives(WRITE_BUCKETS)
                .register(registry);
        ledger.commandBus().observe((commands, nanos) -> {
            batchSize.record(commands);
            commitTime.record(nanos, TimeUnit.NANOSECONDS);
        });
        if (ledger.database().forcedWrites().forcesItself()) {
            Map<ForcedWrites.File, Timer> forced = new EnumMap<>(ForcedWrites.File.class);
            for (ForcedWrites.File file : ForcedWrites.File.values()) {
                forced.put(file, Timer.builder("ledger.forced.write.duration")
                        .description("One forced write on H2, by the file it forced: the journal's segment (file"
                                + " journal: fdatasync, shared by every batch written before it began; what a call"
                                + " waits for, and the sequencer before it publishes a checkpoint) or the store's"
                                + " (file store: its chunks written and fsynced, by checkpoints and commits the"
                                + " journal does not hold); absent on PostgreSQL, which forces each commit itself")
                        .tag("file", file.name().toLowerCase(Locale.ROOT))
                        .serviceLevelObjectives(WRITE_BUCKETS)
                        .register(registry));
            }
            ledger.database().forcedWrites().observe((file, nanos) -> forced.get(file).record(nanos,
                    TimeUnit.NANOSECONDS));
        }
        FunctionCounter.builder("ledger.commit.batches.redecided", ledger.commandBus(), b -> b.redecided())
                .description("Batches decided again because another worker or node changed what they were decided on")
                .register(registry);

        Gauge.builder("ledger.receipts.committed", ledger, l -> l.entries().size())
                .description("Receipts committed to the log (by every node on PostgreSQL)")
                .register(registry);
        Gauge.builder("ledger.receipts.integrated", ledger, l -> l.log().latest().size())
                .description("Receipts in the latest signed checkpoint; committed minus integrated is the log's lag")
                .register(registry);
        Gauge.builder("ledger.projection.position", ledger, l -> l.projector().position())
                .description("Receipts this node has folded into its projections")
                .register(registry);
        Gauge.builder("ledger.sessions.active", ledger, l -> l.projector().activeSessions())
                .description("Sessions initialized or resumed and not yet deleted or expired")
                .register(registry);
        // Held strongly: Micrometer holds a gauge's object weakly, and nothing else holds this one.
        StoreFile file = ledger.database().storeFile();
        if (file != null) {
            Gauge.builder("ledger.store.file", file, StoreFile::bytes)
                    .description("Length of the embedded store's file (ledger.mv.db); absent on PostgreSQL")
                    .baseUnit("bytes")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("ledger.store.live.percent", file, StoreFile::livePercent)
                    .description("Share of the embedded store's file that live pages fill; the rest is dead pages"
                            + " housekeeping rewrites and space new chunks reuse")
                    .strongReference(true)
                    .register(registry);
        }
        // The JVM's own count, exact at each scrape; Micrometer's jvm_gc_memory_allocated_bytes_total is summed at
        // each collection from the heap's size before and after it, which with ZGC depends on the heap's size.
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled()) {
            FunctionCounter.builder("jvm.threads.allocated", threads,
                            com.sun.management.ThreadMXBean::getTotalThreadAllocatedBytes)
                    .description("Bytes allocated on the heap by every thread since the JVM started")
                    .baseUnit("bytes")
                    .register(registry);
        }
    }

    /** A tool call decided: admitted, or refused for {@code reason} (a reason code), {@code nanos} after it arrived. */
    public void decided(String refusalCode, long nanos) {
        if (refusalCode == null) {
            admissions.increment();
        } else {
            refusals.computeIfAbsent(refusalCode, code -> Counter.builder("ledger.refusals")
                    .description("Tool calls refused, by reason code (answers, repeats of a requestId included)")
                    .tag("reason", code)
                    .register(registry)).increment();
        }
        decisionLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A tool call's answer written, {@code nanos} after its request's first byte was read. */
    public void callAnswered(long nanos) {
        callLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    private static Duration ms(double millis) {
        return Duration.ofNanos((long) (millis * 1_000_000));
    }
}
