package io.mcpledger.app.storage;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The free space of the disk that holds the state directory's H2 file, held against a reserve.
 *
 * <p>H2 does not live through a write that fails for want of space: its store closes, and every later request, reads
 * included, fails until a restart. So the ledger never lets new appends reach the disk's last {@code reserve} bytes:
 * while the free space is under the reserve, appends are refused before they are decided ({@code 503 storage_full}),
 * and the reserve is left to what must go on: the batches already accepted, the transparency log's tiles and
 * checkpoints, the projections' flushes and H2's own housekeeping. Reads never need it. Once the free space is back
 * above the reserve by an eighth of it (so that a disk at the edge does not flap), appends are taken again, without a
 * restart. Each change of state is one log line.
 *
 * <p>The space is read every {@link #PERIOD} (one {@code statfs}), not on every append.
 */
public final class DiskSpace implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DiskSpace.class);
    /** How often the free space is read. */
    static final Duration PERIOD = Duration.ofMillis(50);
    /** The default reserve: room for a few seconds of appends at full rate, the log's writes and H2's housekeeping. */
    public static final long DEFAULT_RESERVE_BYTES = 64L << 20;
    private static final long MIB = 1L << 20;

    private final Path directory;
    private final FileStore store;
    private final long reserve;
    private final long resumeAt;
    private final ScheduledExecutorService checker;
    private volatile long usable;
    private volatile boolean full;

    private DiskSpace(Path directory, FileStore store, long reserve) {
        this.directory = directory;
        this.store = store;
        this.reserve = reserve;
        this.resumeAt = reserve + reserve / 8;
        this.checker = DaemonScheduler.named("ledger-disk-space");
    }

    /** Watches the disk of {@code directory} against {@code reserveBytes} (0: never refuses). */
    public static DiskSpace watch(Path directory, long reserveBytes) throws IOException {
        DiskSpace space = new DiskSpace(directory, Files.getFileStore(directory), reserveBytes);
        space.check();
        space.checker.scheduleWithFixedDelay(space::checkQuietly, PERIOD.toMillis(), PERIOD.toMillis(),
                TimeUnit.MILLISECONDS);
        return space;
    }

    /** Why appends are refused now, or empty while the disk has room above the reserve. */
    public Optional<String> full() {
        if (!full) {
            return Optional.empty();
        }
        return Optional.of("the disk holding " + directory + " went under the ledger's reserve of " + mib(reserve)
                + " MiB free (" + mib(usable) + " MiB free now); nothing was stored. Free space on that disk: the"
                + " ledger takes appends again by itself once " + mib(resumeAt) + " MiB are free");
    }

    /** The free space last read, in bytes. */
    public long usable() {
        return usable;
    }

    public long reserve() {
        return reserve;
    }

    /** Reads the free space now and changes state if it crossed a threshold. */
    synchronized void check() throws IOException {
        long now = store.getUsableSpace();
        usable = now;
        if (!full && now < reserve) {
            full = true;
            LOG.warn("The disk holding {} has {} MiB free, under the reserve of {} MiB: appends are refused (503"
                    + " storage_full) until {} MiB are free; reads go on", directory, mib(now), mib(reserve),
                    mib(resumeAt));
        } else if (full && now >= resumeAt) {
            full = false;
            LOG.info("The disk holding {} has {} MiB free again: appends are taken again", directory, mib(now));
        }
    }

    private void checkQuietly() {
        try {
            check();
        } catch (IOException | RuntimeException e) {
            // A disk whose space cannot be read keeps its last state; H2's own writes report a disk that fails.
            LOG.debug("Cannot read the free space of {}: {}", directory, e.toString());
        }
    }

    private static long mib(long bytes) {
        return bytes / MIB;
    }

    @Override
    public void close() {
        checker.shutdownNow();
    }
}
