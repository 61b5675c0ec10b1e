package io.mcpledger.app.engine;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.storage.DiskSpace;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.query.LedgerProjector;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code serve} was asked to run: the state directory, the origin it must have (null: whatever it
 * was created with), the policy to activate (null: keep the active one), the service limits and the sizes of the
 * projections' and the store's caches, the database (null: the state directory's H2 file), the free space kept
 * in reserve on the H2 file's disk, and the commit linger ({@link GroupCommitCommandBus}; zero: none).
 */
public record LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
                             Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval,
                             LedgerProjector.Caches caches, StoreCaches storeCaches, DatabaseUrl database,
                             long diskReserveBytes, Duration commitLinger) {
    /**
     * The store's caches: megabytes of H2's pages, and the transparency log's tiles (8 KiB each) kept after they were
     * read or written.
     */
    public record StoreCaches(int pageMegabytes, int tiles) {
        /**
         * A quarter of H2's own default for its pages (16 MB): under G1 those pages were about half of what each young
         * collection copied, and with 4 MB the pauses halved and the latency targets at 1,000 and 5,000 admissions/s
         * were met where 16 MB missed them, at no CPU these runs resolved (benchmarks.md, section 8, "Past 10,000/s
         * from outside"). Tiles: every level-0 tile of a million entries (32 MiB).
         */
        public static final int DEFAULT_PAGE_MEGABYTES = 4;
        public static final int DEFAULT_TILES = 4_096;
        public static final StoreCaches DEFAULT = new StoreCaches(DEFAULT_PAGE_MEGABYTES, DEFAULT_TILES);
    }

    /** On the state directory's H2 file. */
    public LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
            Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval, LedgerProjector.Caches caches,
            StoreCaches storeCaches) {
        this(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions, checkpointInterval, caches,
                storeCaches, null);
    }

    /**
     * On {@code database} (null: the state directory's H2 file), with the default disk reserve and no commit linger.
     */
    public LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
            Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval, LedgerProjector.Caches caches,
            StoreCaches storeCaches, DatabaseUrl database) {
        this(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions, checkpointInterval, caches,
                storeCaches, database, DiskSpace.DEFAULT_RESERVE_BYTES, Duration.ZERO);
    }

    /** The same settings on another database (null: the state directory's H2 file). */
    public LedgerSettings onDatabase(DatabaseUrl url) {
        return new LedgerSettings(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions,
                checkpointInterval, caches, storeCaches, url, diskReserveBytes, commitLinger);
    }

    /**
     * The same settings with another reserve of free space on the H2 file's disk, under which appends are refused
     * ({@link DiskSpace}).
     */
    public LedgerSettings withDiskReserve(long bytes) {
        return new LedgerSettings(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions,
                checkpointInterval, caches, storeCaches, database, bytes, commitLinger);
    }

    /**
     * The same settings with another commit linger: how long a command worker holding a single command waits for a
     * second one to commit with it ({@link GroupCommitCommandBus}); zero does not wait.
     */
    public LedgerSettings withCommitLinger(Duration linger) {
        return new LedgerSettings(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions,
                checkpointInterval, caches, storeCaches, database, diskReserveBytes, linger);
    }

    /** With the default cache sizes. */
    public LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
            Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval) {
        this(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions, checkpointInterval,
                LedgerProjector.Caches.DEFAULT, StoreCaches.DEFAULT);
    }
}
