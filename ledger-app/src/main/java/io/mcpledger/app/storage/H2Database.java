package io.mcpledger.app.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.h2.api.ErrorCode;
import org.h2.engine.Database;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ledger's embedded H2 file database ({@code <stateDir>/ledger.mv.db}) behind a small connection pool. */
public final class H2Database implements LedgerDatabase {
    private static final Logger LOG = LoggerFactory.getLogger(H2Database.class);
    /** The name of the database file inside the state directory. */
    public static final String FILE_NAME = "ledger.mv.db";
    /** Two command workers (each with a second connection for the projections it reads), the sequencer, the projections' flush and the HTTP readers. */
    public static final int DEFAULT_POOL_SIZE = 10;

    private static final String BASE_NAME = "ledger";
    /**
     * How long H2 keeps a dead chunk before it may write over it (or housekeeping rewrite a chunk), in milliseconds.
     * H2's default (45 s) guards stores that are not forced; here the version of the last forced write stays registered
     * until the next one is recorded ({@link StoreRecovery}), which keeps its chunks whatever this says. The file holds
     * about this long of chunk writes dead beside the live ones, some 30 KB per commit: at a thousand commits a second
     * H2's default kept 45 s of them, and 1 s (the ledger's value until 2026-12-04) still put a young file over the
     * contract's bytes per receipt ({@code DiskPerReceiptTest}: 5,123 bytes per 677-byte receipt after 10 s; with 100
     * ms and housekeeping's floor, 1,170). Not 0: a reader that holds a page's position without a registered version
     * keeps a tenth of a second.
     */
    static final int RETENTION_MS = 100;
    /**
     * WRITE_DELAY: how long H2 holds committed changes before its background thread writes them to the file. H2 never
     * forces the file itself: the log's appends are made durable by the journal ({@link ReceiptJournal}) and every
     * other commit by {@link ForcedWrites#force}, which writes what the store holds unwritten itself. With 0 (the
     * ledger's value until 2026-12-06) every commit wrote a chunk of H2's store from the committing thread, half of the
     * ledger's CPU at 1,000 admissions/s (a JFR profile, benchmarks.md, section 8); with 20 ms a chunk holds the
     * commits of 20 ms. At 1,000 admissions/s over ten minutes (benchmarks.md, section 8, "Written behind again" and
     * "Written behind, shipped") that halves p99 and takes a fifth less CPU per admission, with the file under contract
     * section 13's bound once housekeeping's floor is 70 ({@link StoreHousekeeping#LIVE_SHARE_FLOOR}); 50 and 100 ms
     * took less CPU still but made the file outgrow that bound (chunks that large no longer fit the space dead ones
     * leave). With a delay H2 writes chunks on a thread of its own after the store has moved on to the next version: a
     * forced write waits for the chunk pending when it takes its own ({@link StoreRecovery.Marker#force}; without that
     * wait it recorded an older chunk than the version holding the commits before it, and a checkpoint then dropped
     * journal records that version lacked: PowerLossTest found a gap of 21 receipts), and each chunk is written before
     * the next is serialized ({@link StoreRecovery#saveAsSerialized}; without that a recorded version could lack the
     * chunk before it, and PowerLossTest failed 9 times in 65 runs). A {@code kill -9} loses at most the delay's
     * unforced commits, as a power cut loses them at any delay: neither the journal's nor a forced write's.
     * AUTO_COMPACT_FILL_RATE=0: once WRITE_DELAY is not 0 H2's background
     * thread also compacts the file (moves and rewrites chunks under the store's lock), which held the store up for
     * 0.3 to 0.7 s; {@link StoreHousekeeping} rewrites chunks instead, a bounded amount at a time.
     * DB_CLOSE_ON_EXIT=FALSE leaves closing to {@link #close()}, after Axon has stopped writing, instead of H2's own
     * shutdown hook racing it. TRACE_LEVEL_FILE=0: no {@code ledger.trace.db} beside the log; the ledger's own log says
     * what happened. QUERY_CACHE_SIZE=64: each connection keeps the plans of the statements it ran; with H2's default
     * of 8, a flush of the projections (nine statements) pushed out the plans of the reads beside it, which were
     * parsed again each time.
     */
    static final int WRITE_DELAY_MS = 20;
    private static final String SETTINGS =
            ";AUTO_COMPACT_FILL_RATE=0;DB_CLOSE_ON_EXIT=FALSE;TRACE_LEVEL_FILE=0;QUERY_CACHE_SIZE=64";
    /**
     * How often a checkpoint forces H2's store so that the journal's older segments can be deleted: the journal holds
     * about this long of appends under load (up to {@link #TRICKLE_CHECKPOINT_MS} of a trickle), which a start after
     * an unclean stop applies again.
     */
    static final long CHECKPOINT_MS = 1000;
    /**
     * A checkpoint is put off while the segment holds less than this, for up to {@link #TRICKLE_CHECKPOINT_MS}: each
     * checkpoint starts a segment written with at least {@link ReceiptJournal#PREALLOCATE_MIN} of zeros, so a ledger
     * with a trickle of receipts (one a second) wrote 64 KiB of zeros a second for a kilobyte of receipts. Under load a
     * segment holds this within a checkpoint's interval, and checkpoints come every {@link #CHECKPOINT_MS} as before.
     */
    static final int TRICKLE_BYTES = ReceiptJournal.PREALLOCATE_MIN / 2;
    /** The longest a checkpoint is put off for a segment under {@link #TRICKLE_BYTES}: what a start applies again. */
    static final long TRICKLE_CHECKPOINT_MS = 30_000;

    static {
        // H2 looks every value it reads up in a cache of equal values, hashing it whole: each log line it returns is
        // hashed for nothing (no two are equal), which cost a rebuild about a twelfth of its reading. Read once, when
        // H2 first loads, so it is set here, before this class touches H2; an operator's own -Dh2.objectCache wins.
        if (System.getProperty("h2.objectCache") == null) {
            System.setProperty("h2.objectCache", "false");
        }
    }

    private final Path stateDirectory;
    private final String fileSystem;
    private final HikariDataSource pool;
    private final DataSource dataSource;
    private final MVStore store;
    private final StoreRecovery.Marker marker;
    private final StoreRecovery.Recovered recovered;
    private final ForcedWrites forcedWrites;
    private final ScheduledExecutorService housekeeping;
    private final ReceiptJournal journal;
    private final ScheduledExecutorService checkpoints;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** When the journal's segment was started ({@link System#nanoTime}), read and written by the checkpoints only. */
    private long segmentStarted = System.nanoTime();

    private H2Database(Path stateDirectory, String fileSystem, HikariDataSource pool, DataSource dataSource,
            MVStore store, StoreRecovery.Marker marker, StoreRecovery.Recovered recovered, ForcedWrites forcedWrites,
            ReceiptJournal journal) {
        this.stateDirectory = stateDirectory;
        this.fileSystem = fileSystem;
        this.pool = pool;
        this.dataSource = dataSource;
        this.store = store;
        this.marker = marker;
        this.recovered = recovered;
        this.forcedWrites = forcedWrites;
        this.housekeeping = DaemonScheduler.named("ledger-h2-housekeeping");
        housekeeping.scheduleWithFixedDelay(new StoreHousekeeping(store)::run,
                StoreHousekeeping.INTERVAL_MS, StoreHousekeeping.INTERVAL_MS, TimeUnit.MILLISECONDS);
        this.journal = journal;
        this.checkpoints = DaemonScheduler.named("ledger-h2-checkpoint");
        if (journal != null) {
            checkpoints.scheduleWithFixedDelay(this::checkpoint, CHECKPOINT_MS, CHECKPOINT_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Starts a new segment of the journal, forces the store (its version then holds every append of the segments
     * before) and deletes them. A failure is final for the store ({@link ForcedWrites}) and is logged here; the
     * segments stay.
     */
    void checkpoint() {
        checkpoint(System.nanoTime());
    }

    /**
     * {@link #checkpoint()} at {@code now} ({@link System#nanoTime}); a segment of a trickle waits its turn. One at a
     * time: a test's checkpoint beside the scheduled ones would start the same segment twice.
     */
    synchronized void checkpoint(long now) {
        try {
            long segmentBytes = journal.segmentBytes();
            if (segmentBytes == 0 || failed()) {
                return;
            }
            if (segmentBytes < TRICKLE_BYTES
                    && now - segmentStarted < TimeUnit.MILLISECONDS.toNanos(TRICKLE_CHECKPOINT_MS)) {
                return;
            }
            journal.rotate();
            segmentStarted = now;
            forcedWrites.force();
            journal.dropOlder();
        } catch (IOException | SQLException | RuntimeException e) {
            if (!closed.get()) {
                LOG.error("A checkpoint of the store failed; the journal keeps the receipts since the last one: {}",
                        e.getMessage());
            }
        }
    }

    /** Opens the database with {@link #DEFAULT_POOL_SIZE} connections, creating the file if it is missing. */
    public static H2Database open(Path stateDirectory) throws StorageException {
        return open(stateDirectory, DEFAULT_POOL_SIZE);
    }

    /** Opens the database with {@code poolSize} connections, creating the file if it is missing. */
    public static H2Database open(Path stateDirectory, int poolSize) throws StorageException {
        return open(stateDirectory, poolSize, "", true);
    }

    /**
     * Opens the database through the H2 file system named by {@code fileSystem} (a registered {@code FilePath}
     * scheme followed by ':', or "" for the plain file), forcing every commit to disk unless {@code forceCommits} is
     * false. Tests use it to put a simulated disk under the ledger, and to show that their harness catches a ledger
     * that does not force.
     */
    public static H2Database open(Path stateDirectory, int poolSize, String fileSystem, boolean forceCommits)
            throws StorageException {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
        }
        Path dir = stateDirectory.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new StorageException("the ledger state directory " + dir + " does not exist; run 'ledger-app init --state "
                    + dir + "' first");
        }
        // H2 reads everything after a ';' in the URL as a setting, so such a path would change the database's settings.
        if (dir.toString().contains(";")) {
            throw new StorageException("the ledger state directory " + dir + " contains ';', which H2 cannot open; "
                    + "use a path without ';'");
        }
        StoreRecovery.Recovered recovered = null;
        if (StoreRecovery.needed(dir)) {
            long started = System.nanoTime();
            recovered = StoreRecovery.recover(dir, fileSystem);
            long ms = (System.nanoTime() - started) / 1_000_000;
            if (recovered.scannedWholeFile()) {
                LOG.warn("{} was not closed cleanly (a kill, crash or power loss), and {} recorded no forced commit: a"
                        + " scan of the whole file recovered every complete commit in {} ms", dir.resolve(FILE_NAME),
                        StoreRecovery.MARKER, ms);
            } else {
                LOG.warn("{} was not closed cleanly (a kill, crash or power loss): recovered the version of the last"
                        + " forced commit (chunk {}{}) in {} ms", dir.resolve(FILE_NAME), recovered.chunk().id(),
                        recovered.layoutRewritten() ? ", layout rewritten" : "", ms);
            }
        }
        if (fileSystem.isEmpty()) {
            makePrivate(dir.resolve(FILE_NAME));
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("ledger-h2");
        config.setDriverClassName("org.h2.Driver");
        // Without forced commits (a harness that shows what is lost without them) every commit is written at once.
        config.setJdbcUrl("jdbc:h2:" + (fileSystem.isEmpty() ? "file:" : fileSystem) + dir.resolve(BASE_NAME)
                + ";WRITE_DELAY=" + (forceCommits ? WRITE_DELAY_MS : 0) + SETTINGS);
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.setAutoCommit(false);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw translate(dir, e);
        }
        try {
            Database database = database(pool);
            H2Shutdown.aside(database);
            MVStore store = database.getStore().getMvStore();
            store.setRetentionTime(RETENTION_MS);
            Supplier<String> failure = () -> panicOf(store);
            StoreGate gate = new StoreGate(failure);
            StoreRecovery.Marker marker = StoreRecovery.markOpen(dir, fileSystem, forceCommits ? store : null, gate);
            ForcedWrites forcedWrites = forceCommits ? ForcedWrites.by(force(marker)) : ForcedWrites.never();
            DataSource gated = new GatedDataSource(pool, gate, failure);
            ReceiptJournal journal = forceCommits ? openJournal(dir, fileSystem, gated, forcedWrites) : null;
            return new H2Database(dir, fileSystem, pool, gated, store, marker, recovered, forcedWrites, journal);
        } catch (StorageException | RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Applies what the journal holds and the store does not (appends acknowledged, and checkpoints published, after the
     * last forced write of the store that a recovery found), forces the store so that a recorded version holds it all,
     * and starts a new segment of the journal, deleting the old ones. A journaled checkpoint whose size the store holds
     * another note for is refused, and nothing is applied.
     */
    private static ReceiptJournal openJournal(Path dir, String fileSystem, DataSource database,
            ForcedWrites forcedWrites) throws StorageException {
        try {
            ReceiptJournal.Contents journaled = ReceiptJournal.readAll(dir, fileSystem);
            List<ReceiptJournal.Batch> batches = journaled.batches();
            if (!batches.isEmpty() || !journaled.checkpoints().isEmpty()) {
                int missing;
                int checkpoints = 0;
                try (Connection c = database.getConnection()) {
                    try {
                        missing = LedgerLog.replay(c, batches);
                        for (ReceiptJournal.SignedCheckpoint checkpoint : journaled.checkpoints()) {
                            if (SignedCheckpoints.keep(c, checkpoint.size(), checkpoint.note())) {
                                checkpoints++;
                            }
                        }
                        c.commit();
                    } catch (SQLException e) {
                        c.rollback();
                        throw e;
                    }
                }
                forcedWrites.force();
                if (missing > 0) {
                    LOG.warn("Applied {} receipts from the journal that the store's last forced version did not hold"
                            + " (positions {} to {})", missing, batches.get(batches.size() - 1).end() - missing,
                            batches.get(batches.size() - 1).end() - 1);
                }
                if (checkpoints > 0) {
                    // The sequencer's tree reaches their sizes again at its next integration, as their entries are
                    // stored; the notes are the ones it would sign then (Ed25519 signs deterministically).
                    LOG.warn("Stored {} signed checkpoints from the journal that the store's last forced version did"
                            + " not hold (sizes up to {})", checkpoints,
                            journaled.checkpoints().stream().mapToLong(ReceiptJournal.SignedCheckpoint::size).max()
                                    .orElseThrow());
                }
            }
            ReceiptJournal journal = ReceiptJournal.open(dir, fileSystem);
            journal.dropOlder();
            forcedWrites.journalTo(journal);
            return journal;
        } catch (IOException | SQLException e) {
            throw new StorageException("cannot apply or open the journal of " + dir.resolve(FILE_NAME) + " ("
                    + dir.resolve(ReceiptJournal.PREFIX + "*") + "): " + e.getMessage(), e);
        }
    }

    /**
     * The store's file holds every receipt and the projections, so it is as private as the signing key (contract
     * section 11: mode 0600): created empty with that mode before H2 opens it (H2 would create it with the umask's,
     * usually 0644, and take an empty file for a new store), and a file an earlier version let H2 create is tightened.
     */
    private static void makePrivate(Path file) throws StorageException {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
        try {
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(owner));
            }
            if (!Files.getPosixFilePermissions(file).equals(owner)) {
                Files.setPosixFilePermissions(file, owner);
            }
        } catch (IOException e) {
            throw new StorageException("cannot make " + file + " readable by its owner only (mode 0600): "
                    + e.getMessage() + "; run the ledger as the owner of the state directory", e);
        }
    }

    /** H2's database under the pool, whose store the ledger forces: internal API, pinned with H2's version. */
    private static Database database(HikariDataSource pool) throws StorageException {
        try (Connection c = pool.getConnection()) {
            return ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase();
        } catch (SQLException | ClassCastException e) {
            throw new StorageException("cannot reach H2's store to force its writes: " + e.getMessage(), e);
        }
    }

    /**
     * Writes what H2's store holds unwritten and forces the file, on the store itself, then records the newest chunk
     * in the marker for a recovery ({@link StoreRecovery.Marker#force}). {@code CHECKPOINT SYNC} does the first part,
     * but inside H2's database monitor; a commit whose write fails shuts H2 down, which needs that monitor while
     * holding the store's lock that the sync waits for, and the two deadlocked here (a write failing under concurrent
     * commits).
     */
    private static ForcedWrites.Force force(StoreRecovery.Marker marker) {
        return () -> {
            try {
                marker.force();
            } catch (MVStoreException e) {
                throw new SQLException("H2 could not write or force ledger.mv.db: " + e.getMessage(), e);
            } catch (IOException e) {
                throw new SQLException("cannot record the forced write in " + StoreRecovery.MARKER + ": "
                        + e.getMessage(), e);
            }
        };
    }

    private static StorageException translate(Path dir, RuntimeException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                if (sql.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1) {
                    return StateInUseException.at(dir, failure);
                }
                return new StorageException("cannot open the ledger database " + dir.resolve(FILE_NAME) + ": "
                        + firstLine(sql.getMessage()) + "; if the file is damaged, restore it from a backup", failure);
            }
        }
        return new StorageException("cannot open the ledger database " + dir.resolve(FILE_NAME) + ": "
                + firstLine(String.valueOf(failure.getMessage())), failure);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }

    /** {@code ledger.mv.db}: its length, and the share of it that live pages fill, read from H2 when asked. */
    @Override
    public StoreFile storeFile() {
        return new StoreFile() {
            @Override
            public long bytes() {
                return store.isClosed() ? 0 : store.getFileStore().size();
            }

            @Override
            public int livePercent() {
                if (store.isClosed()) {
                    return 0;
                }
                FileStore<?> file = store.getFileStore();
                return StoreHousekeeping.liveShare(file, file.getChunksFillRate());
            }
        };
    }

    /**
     * Sets how many megabytes of pages H2 keeps in memory, at least 1 (H2's default is 16). The cache is bounded, but
     * it fills as the file grows: the live heap it holds grows with the log until it reaches the bound.
     */
    @Override
    public void pageCache(int megabytes) {
        if (megabytes < 1) {
            throw new IllegalArgumentException("the store's page cache must be at least 1 MB, got " + megabytes);
        }
        store.setCacheSize(megabytes * 1024);
    }

    /** How many megabytes of pages H2 keeps in memory at most ({@link #pageCache}). */
    public int pageCacheMegabytes() {
        return store.getCacheSize();
    }

    /**
     * The pool; its connections start with auto-commit off, and their calls that can change the store pass the gate
     * of the forced writes ({@link StoreGate}).
     */
    @Override
    public DataSource dataSource() {
        return dataSource;
    }

    /** The same pool: one process holds the file, and its projections are beside its log. */
    @Override
    public DataSource projections() {
        return dataSource;
    }

    /** One process holds the file: nobody else appends. */
    @Override
    public boolean shared() {
        return false;
    }


    /** What puts this database's commits on stable storage. */
    @Override
    public ForcedWrites forcedWrites() {
        return forcedWrites;
    }

    /** Stops the checkpoints (waiting for one under way) and closes the journal, whose segments stay. */
    private void stopCheckpoints() {
        stop(checkpoints);
        if (journal != null) {
            try {
                journal.close();
            } catch (IOException e) {
                LOG.warn("Cannot close the journal ({})", e.getMessage());
            }
        }
    }

    private void stopHousekeeping() {
        stop(housekeeping);
    }

    private static void stop(ScheduledExecutorService scheduler) {
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * True once H2's store has failed to write (it then refuses every change) or a force has failed: nothing more can
     * be stored until a restart, and a close stores nothing more.
     */
    @Override
    public boolean failed() {
        return failure().isPresent();
    }

    /** Why nothing more can be stored ({@link #failed}): H2's own failure to write, else the failed force's. */
    private Optional<String> failure() {
        return Optional.ofNullable(panicOf(store)).or(forcedWrites::failure);
    }

    /** H2's own failure to write, which it never recovers from, or null. */
    private static String panicOf(MVStore store) {
        Exception panic = store.getPanicException();
        return panic == null ? null : String.valueOf(panic.getMessage());
    }

    /** How this open recovered from an unclean stop, or null when the last close was clean. */
    StoreRecovery.Recovered recovered() {
        return recovered;
    }

    /** The database file, {@code <stateDir>/ledger.mv.db}. */
    public Path file() {
        return stateDirectory.resolve(FILE_NAME);
    }

    /**
     * Shuts H2 down (it writes a clean header), closes every pooled connection, which releases the file lock, and
     * records the clean close so the next open needs no recovery scan. When H2 cannot shut down cleanly the record
     * stays, and the next open recovers.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Optional<String> failure = failure();
        if (failure.isPresent()) {
            LOG.warn("Writes had failed ({}); the next start recovers from what is on the disk", failure.get());
            // The record of the last forced write stays for that recovery. Housekeeping goes on meanwhile: it frees
            // the rollbacks of the closing connections if H2 spins in them.
            marker.abandon();
            stopCheckpoints();
            pool.close();
            stopHousekeeping();
            return;
        }
        stopCheckpoints();
        stopHousekeeping();
        try {
            marker.close();
        } catch (IOException e) {
            LOG.warn("Cannot clear the record of the last forced write in {} ({})", StoreRecovery.MARKER, e.getMessage());
        }
        boolean shutDown = false;
        try (Connection c = dataSource.getConnection()) {
            // Not closed by hand: after SHUTDOWN every handle on the database refuses to close ("already closed").
            Statement s = c.createStatement();
            s.execute("SHUTDOWN");
            shutDown = true;
        } catch (SQLException | RuntimeException e) {
            if (!shutDown) {
                LOG.warn("H2 did not shut down cleanly ({}); the next start recovers", e.getMessage());
            }
        } finally {
            pool.close();
        }
        // H2 answers SHUTDOWN even when its store could not write its clean header (a disk error, or a power cut
        // under a test): only a header that says so, read back after a force, makes the next start skip recovery.
        boolean clean = shutDown && !failed() && StoreRecovery.closedCleanly(fileSystem + file());
        if (shutDown && !clean) {
            LOG.warn("H2 shut down, but its store had failed to write ({}); the next start recovers",
                    failure().orElse("its header does not say it closed cleanly"));
        }
        if (clean) {
            try {
                if (journal != null) {
                    // The store holds every append, and its header says so: the next open needs no segment.
                    journal.dropAll();
                }
                StoreRecovery.markClosed(stateDirectory);
            } catch (IOException e) {
                LOG.warn("Cannot record the clean close of {} ({}); the next start recovers",
                        file(), e.getMessage());
            }
        }
    }
}
