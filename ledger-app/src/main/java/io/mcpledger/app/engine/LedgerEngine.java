package io.mcpledger.app.engine;

import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.storage.DaemonScheduler;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.JdbcTransactionManager;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.policy.PolicyAnswer;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.ExpireSession;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.query.LedgerProjection;
import io.mcpledger.query.ReceiptLocation;
import io.mcpledger.domain.receipt.Receipt;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.config.Configuration;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.common.stream.BlockingStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running ledger: the H2 store, Axon, and the projections rebuilt by replaying the whole event store
 * before anything is served. The clock is read here, at the edge of the system, and passed into every
 * command as its time; nothing downstream reads it.
 */
public final class LedgerEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);

    private final LoadedState state;
    private final H2Database database;
    private final Configuration axon;
    private final GroupCommitCommandBus commandBus;
    private final LedgerProjection projection;
    private final ReceiptSigner signer;
    private final Clock clock;
    private final ScheduledExecutorService reaper;
    private final ScheduledExecutorService sequencing;
    private final LogSequencer log;
    private final long replayed;
    /** Set while integration fails, cleared by the next run that succeeds. */
    private volatile String integrationFailure;
    private final Duration checkpointInterval;
    /** Set for good if an entry's index ever differs from the one its receipt was answered with. */
    private volatile String indexMismatch;

    private LedgerEngine(LoadedState state, H2Database database, Configuration axon, GroupCommitCommandBus commandBus,
                         LedgerProjection projection, ReceiptSigner signer, Clock clock, LogSequencer log,
                         Duration checkpointInterval, long replayed) {
        this.state = state;
        this.database = database;
        this.axon = axon;
        this.commandBus = commandBus;
        this.projection = projection;
        this.signer = signer;
        this.clock = clock;
        this.log = log;
        this.checkpointInterval = checkpointInterval;
        this.replayed = replayed;
        this.sequencing = DaemonScheduler.named("ledger-sequencer");
        this.reaper = DaemonScheduler.named("ledger-reaper");
    }

    /**
     * Opens the store, replays it into fresh projections, starts Axon, activates {@code settings.policy()}
     * when it differs from the active one, and starts the idle-expiry reaper.
     */
    public static LedgerEngine start(LoadedState state, LedgerSettings settings, Clock clock) throws StorageException {
        return start(state, settings, clock, H2Database.open(state.directory()));
    }

    /** The same on a database already opened on {@code state}'s directory; the engine closes it. */
    public static LedgerEngine start(LoadedState state, LedgerSettings settings, Clock clock, H2Database database)
            throws StorageException {
        LedgerEngine engine;
        try {
            JdbcTransactionManager transactions = new JdbcTransactionManager(database.dataSource(), database.forcedWrites());
            LedgerProjection projection = new LedgerProjection(settings.idleExpiry());
            ReceiptSigner signer = new ReceiptSigner(state.signingKey(), state.origin());
            LedgerContext context = new LedgerContext(signer, projection, settings.idleExpiry(), new RandomIds());
            GroupCommitCommandBus commandBus = new GroupCommitCommandBus(transactions, AxonSetup.COMMAND_WORKERS);
            Configuration axon;
            LogSequencer log;
            long replayed;
            try {
                axon = AxonSetup.build(transactions, commandBus, projection, context);
                replayed = replay(axon, projection);
                log = LogSequencer.open(database.dataSource(), database.forcedWrites(), AxonSetup.serializer(),
                        state.signingKey(), state.origin());
                axon.start();
            } catch (RuntimeException | StorageException e) {
                commandBus.close();
                throw e;
            }
            engine = new LedgerEngine(state, database, axon, commandBus, projection, signer, clock, log,
                    settings.checkpointInterval(), replayed);
        } catch (RuntimeException | StorageException e) {
            database.close();
            throw e;
        }
        try {
            engine.integrate();
            if (settings.policy() != null) {
                engine.activate(settings.policy());
            }
            engine.startReaper(settings.idleExpiry());
            engine.startSequencer();
            return engine;
        } catch (RuntimeException | StorageException e) {
            engine.close();
            throw e;
        }
    }

    private static long replay(Configuration axon, LedgerProjection projection) {
        long count = 0;
        try (BlockingStream<TrackedEventMessage<?>> stream = axon.eventStore().openStream(null)) {
            while (stream.hasNextAvailable()) {
                projection.replay((LedgerEvent) stream.nextAvailable().getPayload());
                count++;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while replaying the event store", e);
        }
        return count;
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
            integrationFailure = "integration into the transparency log failed (retried every half interval): "
                    + e.getMessage();
            LOG.warn("Integration into the transparency log failed; it is retried at the next run", e);
        }
    }

    /**
     * Integrates every committed receipt into the log and publishes a checkpoint; returns how many entries it
     * added. Each entry's index is checked against the one the projections gave the receipt at commit.
     */
    public long integrate() throws StorageException {
        long integrated = log.integrate((index, receipt) -> {
            // A receipt can be integrated between its commit and the fold that follows it: nothing to compare yet.
            long projected = projection.locate(receipt.id()).map(ReceiptLocation::index).orElse(index);
            if (projected != index && indexMismatch == null) {
                indexMismatch = "receipt " + receipt.id() + " is log entry " + index + " but was answered as entry "
                        + projected;
                LOG.error("The log and the projections disagree: {}", indexMismatch);
            }
        });
        integrationFailure = null;
        return integrated;
    }

    /** The longest a committed receipt waits to be integrated. */
    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    /** The transparency log: checkpoints, proofs and entries. */
    public LogSequencer log() {
        return log;
    }

    /**
     * Why the ledger cannot append (its writes can no longer be forced to disk), why the log is not being integrated,
     * or why it disagrees with the projections; empty when all is well.
     */
    public Optional<String> logProblem() {
        Optional<String> unforced = database.forcedWrites().failure()
                .map(f -> "writes can no longer be forced to disk (" + f + "); nothing is acknowledged until the ledger"
                        + " is restarted on a healthy disk");
        return unforced.or(() -> Optional.ofNullable(indexMismatch != null ? indexMismatch : integrationFailure));
    }

    private void startReaper(Duration idleExpiry) {
        long periodMs = Math.max(100, Math.min(1_000, idleExpiry.toMillis() / 4));
        reaper.scheduleWithFixedDelay(this::reap, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private void reap() {
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
        Instant now = now();
        return expire(projection.idleSessions(now), now);
    }

    /** The same for one session, when it is idle now; completes at once when it is not. */
    public CompletableFuture<Void> expireIfIdle(String sessionId) {
        Instant now = now();
        return expire(projection.isIdle(sessionId, now) ? List.of(sessionId) : List.of(), now);
    }

    private CompletableFuture<Void> expire(List<String> sessionIds, Instant now) {
        // Sent together so the expiries share commits; each is appended once by its aggregate.
        return CompletableFuture.allOf(sessionIds.stream()
                .map(id -> commands().send(new ExpireSession(id, now)))
                .toArray(CompletableFuture[]::new));
    }

    /** Makes {@code policy} active; answers without a receipt when it already is. */
    public PolicyAnswer activate(PolicyDocument policy) {
        return commands().sendAndWait(new ActivatePolicy(policy.canonicalJson(), now()));
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

    /** The committed receipt with this id, read from the event store; empty when there is none. */
    public Optional<Receipt> receipt(String receiptId) {
        return projection.locate(receiptId).flatMap(at -> {
            DomainEventStream events = axon.eventStore().readEvents(at.stream(), at.sequence());
            if (!events.hasNext()) {
                return Optional.empty();
            }
            Receipt receipt = ((LedgerEvent) events.next().getPayload()).receipt();
            return receipt.id().equals(receiptId) ? Optional.of(receipt) : Optional.empty();
        });
    }

    /** Every committed receipt of a session, in {@code seq} order; empty for an id never issued. */
    public List<Receipt> sessionReceipts(String sessionId) {
        List<Receipt> receipts = new ArrayList<>();
        axon.eventStore().readEvents(sessionId).asStream()
                .forEach(event -> receipts.add(((LedgerEvent) event.getPayload()).receipt()));
        return receipts;
    }

    public LedgerProjection projection() {
        return projection;
    }

    public ReceiptSigner signer() {
        return signer;
    }

    public LoadedState state() {
        return state;
    }

    /** How many stored events the start-up replay folded into the projections. */
    public long replayed() {
        return replayed;
    }

    /**
     * Stops the reaper and the sequencer, finishes queued commands, integrates them so the last checkpoint covers
     * every receipt, stops Axon, then closes the store, releasing its file lock.
     */
    @Override
    public void close() {
        reaper.shutdownNow();
        // Never interrupted: an interrupt inside H2's file write closes its channel, and H2 then closes the database.
        sequencing.shutdown();
        for (ScheduledExecutorService executor : List.of(reaper, sequencing)) {
            try {
                executor.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            commandBus.close();
            integrateQuietly();
            axon.shutdown();
        } finally {
            database.close();
        }
    }
}
