package io.mcpledger.app.engine;

import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.storage.DaemonScheduler;
import io.mcpledger.app.storage.DiskSpace;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.JdbcTransactionManager;
import io.mcpledger.app.storage.LedgerDatabase;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.LedgerSchema;
import io.mcpledger.app.storage.PostgresDatabase;
import io.mcpledger.app.storage.SqlProjectionStore;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.policy.PolicyAnswer;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.ExpireSession;
import io.mcpledger.domain.session.SettleEdgeCalls;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.query.LedgerProjector;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.config.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running ledger: the store, the projections, Axon's command side and the transparency log, and the background
 * work that keeps them (the projections' flush, the sequencer, the idle-expiry reaper). The clock is read here, at
 * the edge of the system, and passed into every command as its time; nothing downstream reads it.
 *
 * <p>A start opens the store and the projections as they were last stored, then folds the log's entries after them on
 * a thread of its own ({@link #start()} says how far it is) and only then takes commands: so the HTTP service answers
 * {@code 503 starting} with the progress meanwhile, and a start after any stop folds only the log's tail.
 */
public final class LedgerEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);
    /**
     * How often the projections' changes are stored: what a crash makes the next start fold again. A flush writes into
     * the store the log's commits write into, and each commit that runs meanwhile writes the pages the flush has
     * changed so far and waits for the flush's statements: short flushes keep those commits short. At 1,000
     * admissions/s, p99 went from a median of 24 ms with 200 ms to one of 10 ms with 50 ms, with the same CPU per
     * admission and the same saturated rate (docs/benchmarks.md, section 8).
     */
    static final long FLUSH_MS = 50;

    /** Where a start is: folding the log's tail, ready, or failed. */
    public record StartState(boolean ready, long folded, long of, String failure) {
    }

    private final LoadedState state;
    private final LedgerDatabase database;
    private final LogFollower follower;
    private final Configuration axon;
    private final GroupCommitCommandBus commandBus;
    private final LedgerProjector projector;
    private final LedgerLog log;
    private final ReceiptSigner signer;
    private final Clock clock;
    private final LogSequencer sequencer;
    private final Duration checkpointInterval;
    /** The H2 file's disk against its reserve; null on PostgreSQL, whose server minds its own disk. */
    private final DiskSpace disk;
    private final ScheduledExecutorService reaper = DaemonScheduler.named("ledger-reaper");
    private final ScheduledExecutorService sequencing = DaemonScheduler.named("ledger-sequencer");
    private final ScheduledExecutorService flushing = DaemonScheduler.named("ledger-projection-flush");
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile long folded;
    private volatile long toFold;
    /** How many entries the start folded: the log's tail after the stored projections. */
    private volatile long caughtUp;
    /** Set while integration fails, cleared by the next run that succeeds. */
    private volatile String integrationFailure;
    private volatile String flushFailure;

    private LedgerEngine(LoadedState state, LedgerDatabase database, LogFollower follower, Configuration axon,
                         GroupCommitCommandBus commandBus, LedgerProjector projector, LedgerLog log,
                         ReceiptSigner signer, Clock clock, LogSequencer sequencer, Duration checkpointInterval,
                         DiskSpace disk) {
        this.disk = disk;
        this.state = state;
        this.database = database;
        this.follower = follower;
        this.axon = axon;
        this.commandBus = commandBus;
        this.projector = projector;
        this.log = log;
        this.signer = signer;
        this.clock = clock;
        this.sequencer = sequencer;
        this.checkpointInterval = checkpointInterval;
    }

    /** How long {@link #start} waits for the log's tail to be folded: long enough for any log. */
    static final Duration START_TIMEOUT = Duration.ofHours(1);

    /** Opens the store, starts the ledger and waits until it is ready; see {@link #open}. */
    public static LedgerEngine start(LoadedState state, LedgerSettings settings, Clock clock) throws StorageException {
        return start(state, settings, clock, openDatabase(state, settings));
    }

    /**
     * The database {@code settings} name: the PostgreSQL database of {@code --database}, else the state directory's
     * H2 file.
     */
    public static LedgerDatabase openDatabase(LoadedState state, LedgerSettings settings) throws StorageException {
        return settings.database() != null ? PostgresDatabase.open(settings.database())
                : H2Database.open(state.directory());
    }

    /** Starts the ledger on an opened database and waits until it is ready; see {@link #open}. */
    public static LedgerEngine start(LoadedState state, LedgerSettings settings, Clock clock, LedgerDatabase database)
            throws StorageException {
        LedgerEngine engine = open(state, settings, clock, database);
        try {
            engine.awaitStart(START_TIMEOUT);
        } catch (StorageException | RuntimeException e) {
            engine.close();
            throw e;
        }
        return engine;
    }

    /**
     * Starts the ledger on a database already opened on {@code state}'s directory (the engine closes it): the store's
     * tables (created, or moved from an older layout), the projections as stored, the transparency log and Axon; then,
     * on a thread of its own, folds the log's tail, integrates it, activates {@code settings.policy()} when it differs
     * from the active one, and starts the background work. {@link #awaitStart} waits for that.
     */
    public static LedgerEngine open(LoadedState state, LedgerSettings settings, Clock clock, LedgerDatabase database)
            throws StorageException {
        LedgerEngine engine;
        DiskSpace disk = null;
        try {
            database.pageCache(settings.storeCaches().pageMegabytes());
            LedgerSchema.prepare(database, state.origin(), state.publicKeyText());
            LedgerLog log = new LedgerLog(database.dataSource());
            LedgerProjector projector = LedgerProjector.open(
                    new SqlProjectionStore(database.projections(), database.forcedWrites()), log,
                    settings.idleExpiry(), settings.caches());
            JdbcTransactionManager transactions =
                    new JdbcTransactionManager(database.dataSource(), database.forcedWrites());
            ReceiptSigner signer = new ReceiptSigner(state.signingKey(), state.origin());
            LedgerContext context = new LedgerContext(signer, projector, settings.idleExpiry(), new RandomIds(),
                    projector);
            LogSequencer sequencer = LogSequencer.open(database.dataSource(), log, database.forcedWrites(),
                    state.signingKey(), state.origin(), settings.storeCaches().tiles(), database.shared());
            AxonSetup.Caches caches = AxonSetup.Caches.of(settings.maxActiveSessions());
            LogFollower follower = new LogFollower(database.shared(), projector, log, caches.all());
            disk = database instanceof H2Database
                    ? DiskSpace.watch(state.directory(), settings.diskReserveBytes()) : null;
            DiskSpace watched = disk;
            GroupCommitCommandBus commandBus = new GroupCommitCommandBus(transactions, AxonSetup.COMMAND_WORKERS,
                    settings.commitLinger());
            commandBus.refuseWhile(() -> refusal(database, watched));
            commandBus.guard(new LedgerBatchGuard(follower, projector, settings.maxActiveSessions(), () -> {
                try {
                    return LedgerLog.lock(transactions.connectionProvider().getConnection());
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException("cannot lock the log for a batch: " + e.getMessage(), e);
                }
            }));
            Configuration axon;
            try {
                axon = AxonSetup.build(transactions, commandBus, new LedgerEventStorage(transactions, log, projector,
                        follower, settings.maxActiveSessions()), context, caches);
                axon.start();
            } catch (RuntimeException e) {
                commandBus.close();
                throw e;
            }
            engine = new LedgerEngine(state, database, follower, axon, commandBus, projector, log, signer, clock,
                    sequencer, settings.checkpointInterval(), disk);
        } catch (RuntimeException | StorageException e) {
            stopWatching(disk);
            database.close();
            throw e;
        } catch (IOException e) {
            database.close();
            throw new StorageException("cannot read the free space of the disk holding " + state.directory() + ": "
                    + e.getMessage(), e);
        }
        Thread starter = new Thread(() -> engine.finishStart(settings), "ledger-start");
        starter.setDaemon(true);
        starter.start();
        return engine;
    }

    private void finishStart(LedgerSettings settings) {
        try {
            toFold = log.size() - projector.position();
            long started = System.nanoTime();
            caughtUp = projector.catchUp(n -> folded = n);
            if (caughtUp > 0) {
                LOG.info("Folded the log's last {} entries into the projections in {} ms", caughtUp,
                        (System.nanoTime() - started) / 1_000_000);
            }
            integrate();
            if (settings.policy() != null) {
                activate(settings.policy());
            }
            flushing.scheduleWithFixedDelay(this::flushQuietly, FLUSH_MS, FLUSH_MS, TimeUnit.MILLISECONDS);
            startReaper(settings.idleExpiry());
            startSequencer();
            this.started.complete(null);
        } catch (Throwable e) {
            LOG.error("The ledger could not start", e);
            this.started.completeExceptionally(e);
        }
    }

    /**
     * Waits until the start has folded the log's tail and taken its first steps; rethrows what made it fail. The
     * engine serves commands only after that.
     */
    public void awaitStart(Duration timeout) throws StorageException {
        try {
            started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof StorageException s) {
                throw s;
            }
            throw new StorageException("the ledger could not start: " + cause.getMessage(), cause);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new StorageException("the ledger did not finish starting within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted while the ledger was starting", e);
        }
    }

    /** Whether the start is done, and how far its fold of the log's tail is. */
    public StartState start() {
        if (started.isDone()) {
            String failure = null;
            if (started.isCompletedExceptionally()) {
                try {
                    started.join();
                } catch (RuntimeException e) {
                    failure = e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
                }
            }
            return new StartState(failure == null, folded, toFold, failure);
        }
        return new StartState(false, folded, toFold, null);
    }

    /** How many of the log's entries the start folded: only those after the projections it found stored. */
    public long caughtUp() {
        return caughtUp;
    }

    /**
     * Folds what other nodes appended to a shared log, so that what this node answers next reflects every receipt
     * any node had answered before; on H2 nothing.
     */
    public void follow() {
        follower.follow();
    }

    private void flushQuietly() {
        try {
            follower.follow();
            projector.flush();
            flushFailure = null;
        } catch (RuntimeException e) {
            if (flushFailure == null) {
                LOG.warn("Storing the projections failed; the changes stay in memory and are stored at the next try: {}",
                        e.getMessage());
            }
            flushFailure = "storing the projections failed (retried every " + FLUSH_MS + " ms): " + e.getMessage();
        }
    }

    /**
     * Runs the sequencer every half interval, so a receipt committed just after a run is still integrated within
     * one {@code --checkpoint-interval}, as the contract says.
     */
    private void startSequencer() {
        long periodMs = Math.max(1, checkpointInterval.toMillis() / 2);
        sequencing.scheduleAtFixedRate(this::integrateQuietly, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private void integrateQuietly() {
        try {
            integrate();
        } catch (StorageException | RuntimeException e) {
            if (integrationFailure == null) {
                LOG.warn("Integration into the transparency log failed; it is retried every half interval, and this"
                        + " log says when it succeeds again", e);
            } else {
                LOG.debug("Integration into the transparency log failed again", e);
            }
            integrationFailure = "integration into the transparency log failed (retried every half interval): "
                    + e.getMessage();
        }
    }

    /**
     * Why a new command is refused before it is decided: the store can no longer write (every command would fail,
     * each with its own stack of errors), or the H2 file's disk is under its reserve; null when it may go ahead.
     */
    private static NotStoredException refusal(LedgerDatabase database, DiskSpace disk) {
        if (database.failed()) {
            return new NotStoredException("the ledger's store can no longer write; nothing was stored. GET /health"
                    + " says why and what to do", null);
        }
        return disk == null ? null : disk.full().map(StorageFullException::new).orElse(null);
    }

    private static void stopWatching(DiskSpace disk) {
        if (disk != null) {
            disk.close();
        }
    }

    /** Integrates every committed receipt into the log and publishes a checkpoint; returns how many it added. */
    public long integrate() throws StorageException {
        long integrated = sequencer.integrate();
        if (integrationFailure != null) {
            LOG.info("Integration into the transparency log succeeds again");
            integrationFailure = null;
        }
        return integrated;
    }

    /** The longest a committed receipt waits to be integrated. */
    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    /** The transparency log: checkpoints, proofs and entries. */
    public LogSequencer log() {
        return sequencer;
    }

    /**
     * Why the ledger cannot append (its writes can no longer be forced to disk, or its projections stopped), or why
     * the log or the projections are not being stored; empty when all is well.
     */
    public Optional<String> problem() {
        Optional<String> unforced = database.forcedWrites().failure()
                .map(f -> "writes can no longer be forced to disk (" + f + "); nothing is acknowledged until the ledger"
                        + " is restarted on a healthy disk");
        return unforced
                .or(() -> disk == null ? Optional.empty() : disk.full()
                        .map(why -> "appends are refused (503 storage_full): " + why))
                .or(() -> database instanceof PostgresDatabase p ? p.failure() : Optional.empty())
                .or(() -> database.failed() ? Optional.of("the ledger's store failed to write (see its log: a full"
                        + " disk, a failing disk); nothing is acknowledged until the ledger is restarted on a healthy"
                        + " disk") : Optional.empty())
                .or(() -> projector.problem().map(p -> p + "; restart the ledger to fold the log again"))
                .or(() -> Optional.ofNullable(integrationFailure))
                .or(() -> Optional.ofNullable(flushFailure));
    }

    private void startReaper(Duration idleExpiry) {
        long periodMs = Math.max(100, Math.min(1_000, idleExpiry.toMillis() / 4));
        reaper.scheduleWithFixedDelay(this::reap, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private void reap() {
        if (disk != null && disk.full().isPresent()) {
            return; // DiskSpace said so once; the sessions are expired when space returns
        }
        try {
            expireIdleSessions().join();
        } catch (RuntimeException e) {
            LOG.warn("Idle-expiry reaper failed; it retries at its next run: {}", e.toString());
        }
    }

    /**
     * Appends {@code session.expired} for every active session idle past the expiry now: the reaper's run, and what
     * a listing does before it reads. Completes once they are stored.
     */
    public CompletableFuture<Void> expireIdleSessions() {
        follower.follow();
        Instant now = now();
        return expire(projector.idleSessions(now), now);
    }

    /** The same for one session, when it is idle now; completes at once when it is not. */
    public CompletableFuture<Void> expireIfIdle(String sessionId) {
        follower.follow();
        Instant now = now();
        return expire(projector.isIdle(sessionId, now) ? List.of(sessionId) : List.of(), now);
    }

    private CompletableFuture<Void> expire(List<String> sessionIds, Instant now) {
        // Sent together so the expiries share commits; each is appended once by its aggregate.
        return CompletableFuture.allOf(sessionIds.stream()
                .map(id -> commands().send(new ExpireSession(id, now)))
                .toArray(CompletableFuture[]::new));
    }

    /** Makes {@code policy} active; answers without a receipt when it already is. */
    public PolicyAnswer activate(PolicyDocument policy) {
        return commands().sendAndWait(new ActivatePolicy(policy, now()));
    }

    /** The time a command is stamped with: now, at the precision receipts keep. */
    public Instant now() {
        return Timestamps.truncate(clock.instant());
    }

    /** The gateway to the command side; an answer means the command's receipts are committed. */
    public CommandGateway commands() {
        return axon.commandGateway();
    }

    /** Group-commit counters, for benchmarks and health. */
    public GroupCommitCommandBus commandBus() {
        return commandBus;
    }

    /**
     * The committed receipt with this id and its log position; null when there is none. Returned only once it is on
     * stable storage: H2 shows a commit to other connections before the committing thread has forced it, so a receipt
     * read by id in that moment could be lost to a power cut, its caller never answered, and its position signed
     * again for another receipt, while the reader holds the first. One the journal has forced is returned at once;
     * otherwise a force that starts after the read covers it (while the ledger is idle it finds nothing to write), so
     * a burst of reads by id does not force the store, and hold every commit at its gate, once each. (The
     * projections fold a batch only after its force, so what is read through them needs none.) Refuses, {@code 503},
     * once writes can no longer be forced.
     */
    public LedgerLog.Located receipt(String receiptId) {
        LedgerLog.Located located = log.locate(receiptId);
        if (located != null) {
            try {
                database.forcedWrites().forceLog(located.position() + 1);
            } catch (SQLException e) {
                throw new NotStoredException("receipt " + receiptId + " cannot be shown: the ledger's writes can no"
                        + " longer be forced to disk, so it may not survive a restart; GET /health says why", e);
            }
        }
        return located;
    }

    /**
     * Every committed receipt of a session, in {@code seq} order, read back from its latest receipt along each
     * receipt's link to the one before; empty for an id never issued.
     */
    public List<Receipt> sessionReceipts(String sessionId) {
        follower.follow();
        return streamReceipts(projector.headPosition(sessionId));
    }

    /** Every committed receipt of a client stream (contract section 15), in {@code seq} order; empty when it has none. */
    public List<Receipt> clientReceipts(String tokenRef) {
        follower.follow();
        return streamReceipts(projector.clientHeadPosition(tokenRef));
    }

    private List<Receipt> streamReceipts(long head) {
        List<Receipt> receipts = new ArrayList<>();
        for (long position = head; position >= 0; position = log.prevPosition(position)) {
            receipts.add(log.entry(position).receipt());
        }
        Collections.reverse(receipts);
        return receipts;
    }

    /**
     * An edge announced a new incarnation (contract section 15): every sessionless call it admitted under another
     * incarnation and still without an outcome gets the outcome {@code unknown}. Completes with those receipts, in the
     * order of the clients' tokenRefs and then of the calls' admissions, once they are stored.
     */
    public CompletableFuture<List<Receipt>> announceIncarnation(String edgeId, String incarnation) {
        follower.follow();
        Instant now = now();
        List<CompletableFuture<List<Receipt>>> settled = projector.clientsWithPendingCalls().stream()
                .map(tokenRef -> commands().<List<Receipt>>send(new SettleEdgeCalls(tokenRef, edgeId, incarnation,
                        now)))
                .toList();
        return CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new))
                .thenApply(done -> settled.stream().flatMap(f -> f.join().stream()).toList());
    }

    public LedgerProjector projector() {
        return projector;
    }

    /** The log's entries. */
    public LedgerLog entries() {
        return log;
    }

    public ReceiptSigner signer() {
        return signer;
    }

    public LoadedState state() {
        return state;
    }

    /** The database, for benchmarks that measure it. */
    public LedgerDatabase database() {
        return database;
    }

    /**
     * Stops the reaper and the sequencer, finishes queued commands, integrates them so the last checkpoint covers
     * every receipt, stores the projections, stops Axon, then closes the store, releasing its file lock.
     */
    @Override
    public void close() {
        reaper.shutdownNow();
        stopWatching(disk);
        // Never interrupted: an interrupt inside H2's file write closes its channel, and H2 then closes the database.
        sequencing.shutdown();
        flushing.shutdown();
        for (ScheduledExecutorService executor : List.of(reaper, sequencing, flushing)) {
            try {
                executor.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            commandBus.close();
            // After a failed write the store refuses changes (and a statement can hang in H2): nothing more to store.
            if (started.isDone() && !started.isCompletedExceptionally() && !database.failed()) {
                integrateQuietly();
                if (!database.failed()) {
                    flushQuietly();
                }
            }
            axon.shutdown();
        } finally {
            database.close();
        }
    }
}
