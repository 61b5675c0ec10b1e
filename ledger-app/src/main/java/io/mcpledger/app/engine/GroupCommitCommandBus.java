package io.mcpledger.app.engine;

import io.mcpledger.app.storage.UnforcedCommitException;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.session.ClientCommand;
import io.mcpledger.domain.session.SessionCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandCallback;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandResultMessage;
import org.axonframework.commandhandling.callbacks.LoggingCallback;
import org.axonframework.commandhandling.SimpleCommandBus;
import org.axonframework.common.Registration;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.GenericMessage;
import org.axonframework.messaging.MessageDispatchInterceptor;
import org.axonframework.messaging.MessageHandler;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.axonframework.modelling.command.ConcurrencyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: commands that arrive while a commit is under way are handled together, each in its own
 * nested unit of work under one root, and stored by one JDBC commit. No command is answered before that
 * commit: Axon's {@link SimpleCommandBus} answers a nested unit as soon as it finishes, so its answers are
 * held here and delivered after the root has committed (and the projections have folded the batch).
 *
 * <p>A command refused with a {@link LedgerException} (or for a missing aggregate) applied nothing, so its
 * nested unit rolls back alone and the rest of the batch commits. Any other failure may have left a
 * loaded aggregate half-changed, so the whole batch rolls back and every command in it is told so.
 *
 * <p>Each session's commands go to one worker (by session id), and each client stream's (by tokenRef), so two workers
 * never wait on each other's aggregate locks; ledger-wide commands (policy, principals) go to the first.
 *
 * <p>A batch whose append finds it stale ({@link StaleBatchException}: decided on a session, the authority or the
 * session count that another worker or another node changed before the append) is rolled back whole and decided
 * again from the start, up to {@link #MAX_ATTEMPTS} times; its callers hear only the last attempt's answers. Before
 * each attempt the {@link BatchGuard} folds what other nodes appended and notes the authority it is decided under.
 *
 * <p>The workers handle commands in parallel but store them one batch at a time: the append lock is held from the
 * insert of a batch's events to the end of its after-commit steps. So the event store's global index grows in commit
 * order, a reader never sees a later event without every earlier one, and the projections fold receipts in that
 * same order. That order is the transparency log's: the sequencer integrates events by global index, and a rebuild
 * from the event store gives every receipt the index it had.
 *
 * <p>A worker whose batch is decided while the other worker holds the append lock decides the commands that reach
 * it meanwhile into the same batch, up to {@link #MAX_BATCH}, and commits them with it: it waits for the lock anyway,
 * and they would otherwise wait for that commit before being decided, then commit on their own. Under a slow commit
 * (the projections' flush, housekeeping, a slow force) what queued behind it then takes one commit, not one per
 * worker turn.
 *
 * <p>With a linger, a worker that finds a single command waiting waits up to that long for a second one before it
 * decides and commits (as PostgreSQL's {@code commit_delay}): at a steady rate too low to gather batches by itself,
 * two admissions then share one commit, and with it the store's fixed cost per commit (H2 writes the last page of the
 * log and its own bookkeeping again for every commit). A command alone pays up to the linger; none is answered before
 * its commit, as without it.
 */
public final class GroupCommitCommandBus implements CommandBus, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitCommandBus.class);
    /** Enough to amortize a commit; small enough that a batch's latency stays a few milliseconds. */
    static final int MAX_BATCH = 64;
    /** Tries at a batch that keeps being refused as stale; each one follows what made the one before stale. */
    static final int MAX_ATTEMPTS = 8;
    /** How often a worker waiting for the append lock looks for commands to decide into its batch meanwhile. */
    private static final long GATHER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final SimpleCommandBus local;
    private final TransactionManager transactions;
    private final Worker[] workers;
    private final long lingerNanos;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong commands = new AtomicLong();
    private final AtomicLong redecided = new AtomicLong();
    private volatile BatchGuard guard = NO_GUARD;
    private volatile BatchObserver observer = (commands, nanos) -> { };
    private final ReentrantLock appendLock = new ReentrantLock();
    private volatile boolean closed;
    /** Why new commands are refused before they are decided (a full disk, a failed store), or null. */
    private volatile Supplier<NotStoredException> refusal = () -> null;
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public GroupCommitCommandBus(TransactionManager transactions, int workerCount) {
        this(transactions, workerCount, Duration.ZERO);
    }

    /** With {@code linger}: how long a worker holding a single command waits for a second (zero: not at all). */
    public GroupCommitCommandBus(TransactionManager transactions, int workerCount, Duration linger) {
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative, got " + linger);
        }
        this.transactions = transactions;
        this.lingerNanos = linger.toNanos();
        this.local = SimpleCommandBus.builder().transactionManager(transactions).build();
        this.workers = new Worker[workerCount];
        for (int i = 0; i < workerCount; i++) {
            workers[i] = new Worker("ledger-commit-" + i);
            workers[i].start();
        }
    }

    @Override
    public <C> void dispatch(CommandMessage<C> command) {
        dispatch(command, LoggingCallback.INSTANCE);
    }

    @Override
    public <C, R> void dispatch(CommandMessage<C> command, CommandCallback<? super C, ? super R> callback) {
        if (closed) {
            callback.onResult(command, GenericCommandResultMessage.asCommandResultMessage(
                    new NotStoredException("the ledger is shutting down; nothing was stored", null)));
            return;
        }
        NotStoredException refused = refusal.get();
        if (refused != null) {
            callback.onResult(command, GenericCommandResultMessage.asCommandResultMessage(refused));
            return;
        }
        workerFor(command.getPayload()).queue.add(new Pending(command, callback));
    }

    /**
     * Refuses every new command, deciding nothing, with what {@code why} answers while it answers one (null: take
     * it): a {@link StorageFullException} while the disk is under its reserve, a {@link NotStoredException} once the
     * store can no longer write. Commands already queued go on. Before the first command.
     */
    public void refuseWhile(Supplier<NotStoredException> why) {
        this.refusal = why;
    }

    private Worker workerFor(Object payload) {
        return workers[workerIndex(payload, workers.length)];
    }

    /**
     * The worker of a command: a session's by its id, a client stream's (the sessionless calls of contract section 15)
     * by its tokenRef, so each aggregate's commands are decided by one worker in the order they came and two
     * workers never wait on each other's aggregate locks; ledger-wide commands the first's.
     */
    static int workerIndex(Object payload, int workerCount) {
        if (payload instanceof SessionCommand session) {
            return Math.floorMod(session.sessionId().hashCode(), workerCount);
        }
        if (payload instanceof ClientCommand client) {
            try {
                return Math.floorMod(client.tokenRef().hashCode(), workerCount);
            } catch (IllegalArgumentException malformed) {
                return 0; // Not a client token's SHA-256: the handler refuses it, on whichever worker.
            }
        }
        return 0;
    }

    @Override
    public Registration subscribe(String commandName, MessageHandler<? super CommandMessage<?>> handler) {
        return local.subscribe(commandName, handler);
    }

    @Override
    public Registration registerHandlerInterceptor(MessageHandlerInterceptor<? super CommandMessage<?>> interceptor) {
        return local.registerHandlerInterceptor(interceptor);
    }

    @Override
    public Registration registerDispatchInterceptor(MessageDispatchInterceptor<? super CommandMessage<?>> interceptor) {
        return local.registerDispatchInterceptor(interceptor);
    }

    /** Sets what runs around each batch; before the first command. */
    public void guard(BatchGuard guard) {
        this.guard = guard;
    }

    /** Sets what hears of each committed batch (the ledger's metrics). */
    public void observe(BatchObserver observer) {
        this.observer = observer;
    }

    /** Batches decided again because they were stale. */
    public long redecided() {
        return redecided.get();
    }

    /** Commits so far; with {@link #commands()} this gives the mean batch size. */
    public long batches() {
        return batches.get();
    }

    public long commands() {
        return commands.get();
    }

    /** Tests hold the workers back to gather a known batch. */
    void pause() {
        gate = new CountDownLatch(1);
    }

    void resume() {
        gate.countDown();
    }

    /** Stops taking commands, finishes what is queued, and stops the workers. */
    @Override
    public void close() {
        closed = true;
        resume();
        for (Worker worker : workers) {
            try {
                worker.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One try at a batch: each command's result so far, what failed it whole (or null), and whether it was stale. */
    private record Attempt(List<CommandResultMessage<?>> results, Throwable poison, boolean stale) {
    }

    /** What the ledger does around each batch. */
    public interface BatchGuard {
        /**
         * Before a batch is decided: in its root unit of work (its transaction begun), before any command;
         * {@code attempt} is 1, or more when the attempts before were stale.
         */
        void beforeBatch(UnitOfWork<?> root, int attempt);

        /** Why {@code command} is refused before it is handled (a {@code LedgerException}), or null to handle it. */
        RuntimeException refusal(CommandMessage<?> command, UnitOfWork<?> root);

        /**
         * Before these commands of the batch are decided, one after the other on this thread: the first ones after
         * {@link #beforeBatch}, then those decided into the batch while it waits for the append lock.
         */
        default void beforeDecide(List<CommandMessage<?>> commands) {
        }
    }

    /** Hears of each batch that committed. */
    @FunctionalInterface
    public interface BatchObserver {
        /**
         * {@code commands}: the batch's size, refused commands included; {@code commitNanos}: its commit, from the
         * start of the transaction's commit (the forced write included) to the end of its after-commit steps.
         */
        void committed(int commands, long commitNanos);
    }

    private static final BatchGuard NO_GUARD = new BatchGuard() {
        @Override
        public void beforeBatch(UnitOfWork<?> root, int attempt) {
        }

        @Override
        public RuntimeException refusal(CommandMessage<?> command, UnitOfWork<?> root) {
            return null;
        }
    };

    private record Pending(CommandMessage<?> command, CommandCallback<?, ?> callback) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        void answer(CommandResultMessage<?> result) {
            ((CommandCallback) callback).onResult(command, result);
        }
    }

    private final class Worker extends Thread {
        private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();

        Worker(String name) {
            super(name);
            setDaemon(true);
        }

        @Override
        public void run() {
            List<Pending> batch = new ArrayList<>(MAX_BATCH);
            while (!closed || !queue.isEmpty()) {
                try {
                    Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    gate.await();
                    batch.add(first);
                    queue.drainTo(batch, MAX_BATCH - 1);
                    if (lingerNanos > 0 && batch.size() == 1) {
                        Pending next = queue.poll(lingerNanos, TimeUnit.NANOSECONDS);
                        if (next != null) {
                            batch.add(next);
                            queue.drainTo(batch, MAX_BATCH - 2);
                        }
                    }
                    commit(batch);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } finally {
                    batch.clear();
                }
            }
        }

        /**
         * Decides and commits a batch, and answers its commands. A batch refused as stale (decided on state that
         * changed before its append: {@link StaleBatchException}) is rolled back, which also drops its aggregates
         * from the caches, and decided again from the start, up to {@link #MAX_ATTEMPTS} times.
         */
        private void commit(List<Pending> batch) {
            for (int attempt = 1; ; attempt++) {
                Attempt outcome = attempt(batch, attempt);
                if (outcome.stale() && attempt < MAX_ATTEMPTS) {
                    redecided.incrementAndGet();
                    continue;
                }
                if (outcome.stale()) {
                    LOG.warn("A batch of {} commands was still stale after {} attempts; its callers hear that nothing"
                            + " was stored", batch.size(), attempt, outcome.poison());
                }
                answer(batch, outcome.results(), outcome.poison());
                return;
            }
        }

        /**
         * One attempt. A retry ({@code attempt > 1}) holds the append lock throughout: its guard may lock the log in
         * the database from the start, and this worker must not then wait for the append lock while the other worker
         * holds it and waits for the database's.
         */
        private Attempt attempt(List<Pending> batch, int attempt) {
            if (attempt == 1) {
                return decideAndCommit(batch, attempt);
            }
            appendLock.lock();
            try {
                return decideAndCommit(batch, attempt);
            } finally {
                appendLock.unlock();
            }
        }

        private Attempt decideAndCommit(List<Pending> batch, int attempt) {
            List<CommandResultMessage<?>> results = new ArrayList<>(batch.size());
            UnitOfWork<?> root = DefaultUnitOfWork.startAndGet(new GenericMessage<>("group commit of " + batch.size()));
            Throwable poison = null;
            try {
                root.attachTransaction(transactions);
                guard.beforeBatch(root, attempt);
                poison = decide(batch, 0, root, results);
                if (poison == null) {
                    poison = lockForAppend(batch, root, results);
                }
                if (poison != null) {
                    LOG.warn("A batch of {} commands is rolled back: a command failed after it had applied events",
                            batch.size(), poison);
                    root.rollback(poison);
                } else {
                    long commitStart = System.nanoTime();
                    try {
                        root.commit();
                    } finally {
                        appendLock.unlock();
                    }
                    observer.committed(batch.size(), System.nanoTime() - commitStart);
                }
            } catch (RuntimeException | Error e) {
                // An Error (H2 throws AssertionError from a store a power cut has broken) can leave the unit of work
                // neither committed nor rolled back, and a commit that was not forced may still look committed: neither
                // is ever answered as stored. Only an Exception after a completed, forced commit lets the answers stand.
                if (root.isActive() || root.isRolledBack() || e instanceof Error || unforced(e)) {
                    poison = e;
                    if (!stale(e)) {
                        LOG.warn("A batch of {} commands is rolled back ({}); its callers hear that nothing was stored",
                                batch.size(), root.phase(), e);
                    }
                    if (root.isActive()) {
                        try {
                            root.rollback(e);
                        } catch (RuntimeException | Error rollback) {
                            e.addSuppressed(rollback);
                        }
                    }
                } else {
                    // Failed after the commit (an after-commit step): the receipts are stored, so the
                    // answers stand; the failing step logs its own consequences.
                    LOG.error("A batch of {} commands is committed, but a step after the commit failed", batch.size(), e);
                }
            }
            return new Attempt(results, poison, poison != null && stale(poison));
        }

        /**
         * Decides the commands of {@code batch} from {@code from} on, each in its own nested unit of work under
         * {@code root}, adding each one's result to {@code results}; stops at the first that failed after it had
         * applied events and returns that failure (null if there is none).
         */
        private Throwable decide(List<Pending> batch, int from, UnitOfWork<?> root,
                                 List<CommandResultMessage<?>> results) {
            if (from < batch.size()) {
                List<CommandMessage<?>> commands = new ArrayList<>(batch.size() - from);
                for (int i = from; i < batch.size(); i++) {
                    commands.add(batch.get(i).command());
                }
                guard.beforeDecide(commands);
            }
            for (int i = from; i < batch.size(); i++) {
                Pending pending = batch.get(i);
                RuntimeException refused = guard.refusal(pending.command(), root);
                if (refused != null) {
                    results.add(GenericCommandResultMessage.asCommandResultMessage(refused));
                    continue;
                }
                CommandResultMessage<?>[] result = new CommandResultMessage<?>[1];
                local.dispatch(pending.command(), (c, r) -> result[0] = r);
                results.add(result[0]);
                if (result[0].isExceptional() && !appliedNothing(result[0].exceptionResult())) {
                    return result[0].exceptionResult();
                }
            }
            return null;
        }

        /**
         * Takes the append lock for a decided batch. While the other worker holds it (its commit under way), the
         * commands that reach this worker meanwhile are decided into the same batch, up to {@link #MAX_BATCH}: this
         * worker waits for the lock anyway, and they would otherwise wait for this commit before being decided, then
         * commit on their own. Returns null holding the lock, or, without it, the failure of a command so decided
         * that had applied events (the batch then rolls back whole, as when it was decided first).
         */
        private Throwable lockForAppend(List<Pending> batch, UnitOfWork<?> root,
                                        List<CommandResultMessage<?>> results) {
            if (appendLock.tryLock()) {
                return null;
            }
            try {
                while (true) {
                    int decided = batch.size();
                    if (decided < MAX_BATCH) {
                        queue.drainTo(batch, MAX_BATCH - decided);
                        Throwable poison = decide(batch, decided, root, results);
                        if (poison != null) {
                            return poison;
                        }
                    }
                    if (appendLock.tryLock(GATHER_NANOS, TimeUnit.NANOSECONDS)) {
                        return null;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                appendLock.lock();
                return null;
            }
        }

        private void answer(List<Pending> batch, List<CommandResultMessage<?>> results, Throwable poison) {
            batches.incrementAndGet();
            commands.addAndGet(batch.size());
            // A command that failed unexpectedly while the ledger came to refuse new commands (the store stopped
            // writing under it: the other worker's commit or housekeeping met a full disk, and this command's reads
            // found the database closed) failed because of that, not of its own: it hears what the next command will.
            NotStoredException refusedNow = poison == null || poison instanceof NotStoredException ? null
                    : refusal.get();
            for (int i = 0; i < batch.size(); i++) {
                CommandResultMessage<?> result = i < results.size() ? results.get(i) : null;
                boolean ownAnswer = poison == null || (result != null && result.isExceptional()
                        && (result.exceptionResult() == poison || appliedNothing(result.exceptionResult())));
                if (ownAnswer && refusedNow != null && result.exceptionResult() == poison) {
                    batch.get(i).answer(GenericCommandResultMessage.asCommandResultMessage(refusedNow));
                } else if (ownAnswer) {
                    batch.get(i).answer(result);
                } else {
                    batch.get(i).answer(GenericCommandResultMessage.asCommandResultMessage(new NotStoredException(
                            unforced(poison)
                                    ? "not acknowledged: the commit this command shared was stored but could not be"
                                    + " forced to disk (" + poison.getMessage() + "); the ledger acknowledges nothing"
                                    + " until it is restarted on a healthy disk, and a retry of the same request then"
                                    + " answers the stored receipt if it survived"
                                    : "not stored: the commit this command shared failed (" + poison
                                    + "); it is safe to retry",
                            poison)));
                }
            }
        }

        private boolean stale(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof ConcurrencyException) {
                    return true;
                }
            }
            return false;
        }

        private boolean unforced(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof UnforcedCommitException) {
                    return true;
                }
            }
            return false;
        }

        private boolean appliedNothing(Throwable failure) {
            return failure instanceof LedgerException || failure instanceof AggregateNotFoundException;
        }
    }
}
