package io.mcpledger.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.LedgerEvents;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.LedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.ledger.SessionView;
import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.session.Authority;
import io.mcpledger.domain.session.CallBook;
import io.mcpledger.domain.session.CallRecord;
import io.mcpledger.domain.session.CallStatus;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionHistory;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.query.ProjectionStore.CallKey;
import io.mcpledger.query.ProjectionStore.Flush;
import io.mcpledger.query.ProjectionStore.Meta;
import io.mcpledger.query.ProjectionStore.StoredCall;
import io.mcpledger.query.ProjectionStore.StoredClient;
import io.mcpledger.query.ProjectionStore.StoredSession;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's projections, all folded from receipts with {@link LedgerFold}: sessions, client streams (calls made
 * without a session), their calls, capability owners, revoked principals and the active policy. It is the
 * {@link Authority} admissions read and the {@link SessionHistory} session aggregates are loaded from.
 *
 * <p><b>Memory.</b> The heap holds the authority (the active policy and every revoked principal), the ids and last
 * activity of the active sessions, what changed since the last flush, and bounded caches; everything else is in the
 * {@link ProjectionStore}. A flush writes the changes and the log position they reach in one transaction, so the
 * stored projections are always those of a prefix of the log: a start folds only the entries after it.
 *
 * <p><b>Order.</b> Committed batches are folded in log order, each with the positions the append gave it, before
 * their commands are answered ({@link #foldCommitted}); so whatever an answered command appended is visible to every
 * later read and decision. A receipt the fold refuses stops the projections for good ({@link #problem}): they are no
 * longer those of the log, so nothing more is folded or stored, and the ledger appends nothing until a restart folds
 * the log again from the last flush.
 */
public final class LedgerProjector implements Authority, SessionHistory {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerProjector.class);
    /** How many folded receipts a catch-up or rebuild holds in memory before it flushes. */
    static final int CATCH_UP_FLUSH = 20_000;
    /** Entries the catch-up's reader hands over at a time, and chunks it may read ahead. */
    private static final int CHUNK = 1_000;
    private static final int READ_AHEAD = 8;
    /** What the reader hands over after the last entry (compared by identity). */
    private static final List<LogReader.Entry> END_OF_LOG = new ArrayList<>();

    /** A pending call added to or removed from the store's pending list. */
    private record PendingChange(StoredCall call, boolean pending) {
    }

    /** Cache sizes, in entries. */
    public record Caches(long sessions, long calls) {
        public static final Caches DEFAULT = new Caches(20_000, 50_000);
    }

    private final ProjectionStore store;
    private final LogReader log;
    private final Duration idleExpiry;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final ReentrantLock flushLock = new ReentrantLock();

    private final Overlay<String, StoredSession> sessions;
    /** Client streams (contract section 15) by tokenRef. */
    private final Overlay<String, StoredClient> clients;
    private final Overlay<CallKey, StoredCall> calls;
    private final Overlay<Long, PendingChange> pending = new Overlay<>(0);
    private final Overlay<String, String> owners = new Overlay<>(0);
    private final Overlay<String, Long> revocations = new Overlay<>(0);

    /** Every revoked principal with the position of its revocation: authority, so all of it is in memory. */
    private final Map<String, Long> revoked = new ConcurrentHashMap<>();
    /** The active sessions and their last activity: bounded by the session cap. */
    private final NavigableMap<String, Instant> active = new ConcurrentSkipListMap<>();
    private volatile PolicyDocument policy;
    private long policyPosition = -1;
    private long policyActivations;
    /** The next position to fold: how many receipts the projections hold. */
    private volatile long position;
    private long flushedPosition = -1;
    private String flushedPolicy;
    private volatile String problem;
    /** Policy activations and principal revocations folded by this projector (since it was opened). */
    private volatile long authorityChanges;

    private final ProjectedLedger ledger = new ProjectedLedger();
    /** The position of the receipt being folded, and the policy it activates; only under the write lock. */
    private long folding;
    private PolicyDocument foldingPolicy;

    /**
     * A call a worker read ahead for the batch it decides ({@link #readAhead}): the head of its session or client
     * stream when it was read, and what the store held then (null: no call).
     */
    private record Ahead(long head, StoredCall call) {
    }

    /** What the current thread read ahead for its batch; kept until it reads ahead again. */
    private final ThreadLocal<Map<CallKey, Ahead>> readAhead = ThreadLocal.withInitial(HashMap::new);

    /** A call a batch asks about: in the session {@code stream}, or in the client stream of that tokenRef. */
    public record WantedCall(String stream, boolean client, String requestId) {
    }

    private LedgerProjector(ProjectionStore store, LogReader log, Duration idleExpiry, Caches caches) {
        this.store = store;
        this.log = log;
        this.idleExpiry = idleExpiry;
        this.sessions = new Overlay<>(caches.sessions());
        this.clients = new Overlay<>(caches.sessions());
        this.calls = new Overlay<>(caches.calls());
    }

    /**
     * Opens the projections the store holds (empty on a new store) and the authority they reached; folds nothing: call
     * {@link #catchUp} for the log's entries after them.
     */
    public static LedgerProjector open(ProjectionStore store, LogReader log, Duration idleExpiry, Caches caches) {
        LedgerProjector projector = new LedgerProjector(store, log, idleExpiry, caches);
        projector.load();
        return projector;
    }

    private void load() {
        Meta meta = store.meta();
        position = meta.position();
        flushedPosition = meta.position();
        policyPosition = meta.policyPosition();
        policyActivations = meta.policyActivations();
        policy = policyPosition < 0 ? null : log.entry(policyPosition).policy();
        flushedPolicy = policy == null ? null : policy.hash();
        revoked.putAll(store.revokedPrincipals());
        for (StoredSession s : store.activeSessions()) {
            active.put(s.state().id(), s.state().lastActivityAt());
            sessions.cache(s.state().id(), s);
        }
    }

    // ---------------------------------------------------------------- folding

    /**
     * Folds every committed entry after the projections' position, flushing as it goes, and tells {@code progress}
     * how many it folded so far. Returns how many it folded.
     */
    public long catchUp(LongConsumer progress) {
        long end = log.size();
        long start = position;
        long folded = 0;
        // The log is read and parsed on a thread of its own while this one folds and flushes: the two take about as
        // long, so on two cores the whole takes half as long. The queue of chunks bounds what waits in memory.
        BlockingQueue<List<LogReader.Entry>> chunks = new ArrayBlockingQueue<>(READ_AHEAD);
        AtomicReference<Throwable> readFailure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            List<LogReader.Entry> chunk = new ArrayList<>(CHUNK);
            try {
                log.scan(start, end, entry -> {
                    chunk.add(entry);
                    if (chunk.size() == CHUNK) {
                        put(chunks, new ArrayList<>(chunk));
                        chunk.clear();
                    }
                });
            } catch (RuntimeException | Error e) {
                readFailure.set(e);
            } finally {
                if (!chunk.isEmpty()) {
                    put(chunks, chunk);
                }
                put(chunks, END_OF_LOG);
            }
        }, "ledger-catch-up-reader");
        reader.setDaemon(true);
        reader.start();
        // Flushes run beside the fold too, one at a time: the fold waits only when the one before is still writing.
        ExecutorService flusher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ledger-catch-up-flush");
            t.setDaemon(true);
            return t;
        });
        Future<?> flushing = null;
        try {
            while (true) {
                List<LogReader.Entry> chunk = take(chunks);
                if (chunk == END_OF_LOG) {
                    Throwable failure = readFailure.get();
                    if (failure != null) {
                        throw failure instanceof RuntimeException r ? r : new IllegalStateException(failure);
                    }
                    if (position < end) {
                        throw new IllegalStateException("the log ended at entry " + position + ", before " + end);
                    }
                    break;
                }
                write(() -> {
                    for (LogReader.Entry entry : chunk) {
                        if (entry.position() != position) {
                            throw new IllegalStateException("the log gave entry " + entry.position()
                                    + " where the projections expected entry " + position);
                        }
                        fold(entry.receipt(), entry.policy());
                    }
                    return null;
                });
                long before = folded;
                folded += chunk.size();
                if (before / CATCH_UP_FLUSH != folded / CATCH_UP_FLUSH) {
                    awaitFlush(flushing);
                    flushing = flusher.submit(this::flush);
                }
                progress.accept(folded);
            }
            awaitFlush(flushing);
        } finally {
            reader.interrupt();
            flusher.shutdown();
        }
        flush();
        return folded;
    }

    private static void awaitFlush(Future<?> flushing) {
        if (flushing == null) {
            return;
        }
        try {
            flushing.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the projections were stored", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    private static void put(BlockingQueue<List<LogReader.Entry>> queue, List<LogReader.Entry> chunk) {
        try {
            queue.put(chunk);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the catch-up stopped", e);
        }
    }

    private static List<LogReader.Entry> take(BlockingQueue<List<LogReader.Entry>> queue) {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while folding the log", e);
        }
    }

    /**
     * Folds a batch that has just been committed at positions {@code first}, {@code first + 1}...: the append's
     * positions, which must continue the projections' own.
     */
    public void foldCommitted(long first, List<? extends LedgerEvent> events) {
        write(() -> {
            requireHealthy();
            if (first + events.size() <= position) {
                // Already folded from the log by {@link #follow}, which may read a batch between its commit and this.
                return null;
            }
            if (first != position) {
                throw broken("a batch was appended at position " + first + " but the projections hold " + position
                        + " entries");
            }
            for (LedgerEvent event : events) {
                fold(event.receipt(), event instanceof PolicyActivated p ? p.document() : null);
            }
            return null;
        });
    }

    /**
     * Folds the committed entries before {@code end} that the projections do not hold yet: what other ledger nodes
     * appended to a log they share with this one. Entries are read outside the projections' lock and folded under it,
     * skipping any that a concurrent {@link #foldCommitted} or follow folded meanwhile. Returns the streams (sessions,
     * principals, the policy) whose state changed, whose cached aggregates are then stale.
     */
    public Set<String> follow(long end) {
        Set<String> touched = new HashSet<>();
        while (position < end) {
            long from = position;
            long to = Math.min(end, from + CATCH_UP_FLUSH);
            List<LogReader.Entry> entries = new ArrayList<>((int) (to - from));
            log.scan(from, to, entries::add);
            if (entries.size() != to - from) {
                throw new IllegalStateException("the log gave " + entries.size() + " entries from " + from
                        + " where " + (to - from) + " are committed");
            }
            write(() -> {
                requireHealthy();
                for (LogReader.Entry entry : entries) {
                    if (entry.position() < position) {
                        continue;
                    }
                    if (entry.position() != position) {
                        throw broken("the log gave entry " + entry.position() + " where the projections expected"
                                + " entry " + position);
                    }
                    fold(entry.receipt(), entry.policy());
                    touched.add(LedgerEvents.stream(LedgerEvents.of(entry.receipt(), entry.policy())));
                }
                return null;
            });
        }
        return touched;
    }

    /**
     * How many times the authority (the active policy, the revoked principals) has changed in the log folded so far:
     * a decision made while this was n is stale once it is not.
     */
    public long authorityChanges() {
        return authorityChanges;
    }

    /** Folds one receipt at {@link #position}; under the write lock. */
    private void fold(Receipt receipt, PolicyDocument activated) {
        folding = position;
        foldingPolicy = activated;
        try {
            LedgerFold.apply(ledger, receipt);
        } catch (RuntimeException e) {
            throw broken("receipt " + receipt.id() + " at log position " + position + " cannot be folded: "
                    + e.getMessage());
        }
        position++;
    }

    private IllegalStateException broken(String why) {
        if (problem == null) {
            problem = why;
            LOG.error("The projections stopped: {}. Nothing more is appended; restart the ledger to fold the log"
                    + " again from the last flush.", why);
        }
        return new IllegalStateException(why);
    }

    private void requireHealthy() {
        if (problem != null) {
            throw new IllegalStateException("the projections stopped: " + problem);
        }
    }

    /** Why the projections no longer match the log, or empty while they do. */
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    // ---------------------------------------------------------------- flushing

    /**
     * Writes what changed since the last flush, with the position it reaches, in one transaction; nothing when
     * nothing changed. Never after a fold failed: what is in memory may then not be a prefix of the log.
     */
    public void flush() {
        flushLock.lock();
        try {
            flushHeld();
        } finally {
            flushLock.unlock();
        }
    }

    private void flushHeld() {
        String[] policyHash = new String[1];
        Flush flush = write(() -> {
            if (problem != null || (position == flushedPosition && sessions.unflushed() == 0
                    && clients.unflushed() == 0 && calls.unflushed() == 0 && pending.unflushed() == 0)) {
                return null;
            }
            List<StoredCall> added = new ArrayList<>();
            List<StoredCall> removed = new ArrayList<>();
            for (PendingChange change : pending.startFlush()) {
                (change.pending() ? added : removed).add(change.call());
            }
            Map<String, String> newOwners = new HashMap<>();
            List<String> ownerKeys = new ArrayList<>();
            owners.forEachUnflushed((capability, session) -> {
                newOwners.put(capability, session);
                ownerKeys.add(capability);
            });
            owners.startFlush();
            Map<String, Long> newRevocations = new HashMap<>();
            revocations.forEachUnflushed(newRevocations::put);
            revocations.startFlush();
            policyHash[0] = policy == null ? null : policy.hash();
            return new Flush(new Meta(position, policyPosition, policyActivations),
                    sessions.startFlush(), calls.startFlush(), added, removed, newOwners, newRevocations,
                    clients.startFlush());
        });
        if (flush == null) {
            return;
        }
        try {
            store.write(flush);
        } catch (ProjectionConflictException e) {
            write(() -> broken("the projections could not be stored at log position " + flush.meta().position() + ": "
                    + e.getMessage()));
            throw e;
        }
        write(() -> {
            sessions.flushed();
            clients.flushed();
            // Only calls waiting for a receipt stay cached: a pending one's outcome, an unknown one's resolution. The
            // others are read again rarely, and caching the thousands a catch-up flushes, under the lock, took a
            // twentieth of its CPU.
            calls.flushed(call -> call.status() == CallStatus.PENDING || call.status() == CallStatus.UNKNOWN);
            pending.flushed();
            owners.flushed();
            revocations.flushed();
            flushedPosition = flush.meta().position();
            flushedPolicy = policyHash[0];
            return null;
        });
    }

    /** How many changes wait for a flush; the flusher flushes early when this grows. */
    public int unflushed() {
        return read(() -> sessions.unflushed() + clients.unflushed() + calls.unflushed() + pending.unflushed());
    }

    // ---------------------------------------------------------------- the ledger state the fold changes

    /** The projections as {@link LedgerFold} sees them; every method runs under the write lock, inside a fold. */
    private final class ProjectedLedger implements LedgerState {
        @Override
        public SessionState session(String id) {
            StoredSession changed = sessions.dirty(id);
            if (changed != null) {
                return changed.state();
            }
            StoredSession known = storedSession(id);
            if (known == null) {
                return null;
            }
            // Flushing and cached values are never changed in place: change a copy.
            StoredSession copy = new StoredSession(known.key(), known.state().copy(), known.headPosition());
            sessions.put(id, copy);
            return copy.state();
        }

        @Override
        public CallBook calls(String sessionId) {
            StoredSession s = sessions.dirty(sessionId);
            return new ProjectedCalls(s == null ? folding : s.key());
        }

        @Override
        public void sessionFolded(SessionState after, boolean wasActive, Receipt r) {
            StoredSession before = sessions.dirty(after.id());
            long key = before == null ? folding : before.key();
            sessions.put(after.id(), new StoredSession(key, after, folding));
            if (after.active()) {
                active.put(after.id(), after.lastActivityAt());
            } else {
                active.remove(after.id());
            }
        }

        @Override
        public void capabilityIssued(String capabilityId, String sessionId) {
            owners.put(capabilityId, sessionId);
        }

        @Override
        public boolean principalRevoked(String tokenRef, Receipt r) {
            if (revoked.putIfAbsent(tokenRef, folding) != null) {
                return false;
            }
            revocations.put(tokenRef, folding);
            authorityChanges++;
            return true;
        }

        @Override
        public ClientState client(String tokenRef) {
            StoredClient changed = clients.dirty(tokenRef);
            if (changed != null) {
                return changed.state();
            }
            StoredClient known = storedClient(tokenRef);
            if (known == null) {
                return null;
            }
            // As for sessions: change a copy, never what is cached or being flushed.
            StoredClient copy = new StoredClient(known.key(), known.state().copy(), known.headPosition());
            clients.put(tokenRef, copy);
            return copy.state();
        }

        @Override
        public CallBook clientCalls(String tokenRef) {
            StoredClient c = clients.dirty(tokenRef);
            return new ProjectedCalls(c == null ? folding : c.key());
        }

        @Override
        public void clientFolded(ClientState after, Receipt r) {
            StoredClient before = clients.dirty(after.tokenRef());
            long key = before == null ? folding : before.key();
            clients.put(after.tokenRef(), new StoredClient(key, after, folding));
        }

        @Override
        public void policyActivated(String hash, Receipt r) {
            if (foldingPolicy == null || !foldingPolicy.hash().equals(hash)) {
                throw new IllegalStateException("policy.activated " + r.id() + " names policy " + hash + " but the log "
                        + (foldingPolicy == null ? "holds no document for it" : "holds " + foldingPolicy.hash()));
            }
            policy = foldingPolicy;
            policyPosition = folding;
            policyActivations++;
            authorityChanges++;
        }
    }

    /** One session's calls in the projections: a status and log positions per call, stored as they change. */
    private final class ProjectedCalls implements CallBook {
        private final long session;

        ProjectedCalls(long session) {
            this.session = session;
        }

        @Override
        public CallStatus status(String requestId) {
            StoredCall call = storedCall(session, requestId);
            return call == null ? null : call.status();
        }

        /**
         * From memory only: a call is admitted far more often than anything else happens, and reading the store each
         * time to find nothing would cost a query per admission. The aggregate that signed the receipt has checked
         * the requestId already; a second decision that got past it anyway is refused by the store's unique key on
         * (requestId, session) at the next flush, which stops the projections as a refused fold does.
         */
        @Override
        public boolean decidedBefore(String requestId) {
            return calls.get(new CallKey(session, requestId)) != null;
        }

        @Override
        public void decided(String requestId, Receipt decision, String incarnation) {
            boolean admitted = decision.kind() == ReceiptKind.CALL_ADMITTED;
            StoredCall call = new StoredCall(session, requestId, folding,
                    admitted ? CallStatus.PENDING : CallStatus.REFUSED, -1, -1);
            calls.put(new CallKey(session, requestId), call);
            if (admitted) {
                pending.put(folding, new PendingChange(call, true));
            }
        }

        @Override
        public void settled(String requestId, CallStatus status, Receipt receipt) {
            StoredCall before = storedCall(session, requestId);
            StoredCall after = status == CallStatus.RESOLVED
                    ? new StoredCall(session, requestId, before.decision(), status, before.outcome(), folding)
                    : new StoredCall(session, requestId, before.decision(), status, folding, before.resolution());
            calls.put(new CallKey(session, requestId), after);
            if (before.status() == CallStatus.PENDING) {
                PendingChange added = pending.dirty(before.decision());
                if (added != null && added.pending() && !pending.flushing(before.decision())) {
                    // Added and settled since the last flush: the store never needs to hear of it.
                    pending.discard(before.decision());
                } else {
                    pending.put(before.decision(), new PendingChange(after, false));
                }
            }
        }
    }

    /** A client stream from memory or the store; under the write lock, what the store gives is cached. */
    private StoredClient storedClient(String tokenRef) {
        StoredClient c = clients.get(tokenRef);
        if (c == null) {
            c = store.client(tokenRef);
            if (c != null) {
                clients.cache(tokenRef, c);
            }
        }
        return c;
    }

    /** A session from memory or the store; under the write lock, what the store gives is cached. */
    private StoredSession storedSession(String id) {
        StoredSession s = sessions.get(id);
        if (s == null) {
            s = store.session(id);
            if (s != null) {
                sessions.cache(id, s);
            }
        }
        return s;
    }

    private StoredCall storedCall(long session, String requestId) {
        CallKey key = new CallKey(session, requestId);
        StoredCall call = calls.get(key);
        if (call == null) {
            call = store.call(session, requestId);
            if (call != null) {
                calls.cache(key, call);
            }
        }
        return call;
    }

    // ---------------------------------------------------------------- authority and history

    @Override
    public Optional<PolicyDocument> activePolicy() {
        return Optional.ofNullable(policy);
    }

    @Override
    public boolean isPrincipalRevoked(String tokenRef) {
        return revoked.containsKey(tokenRef);
    }

    /** The revocation receipt of a revoked principal, or null. */
    public Receipt principalRevocation(String tokenRef) {
        Long at = revoked.get(tokenRef);
        return at == null ? null : log.entry(at).receipt();
    }

    /** The position of a revoked principal's revocation, or -1. */
    public long principalRevocationPosition(String tokenRef) {
        Long at = revoked.get(tokenRef);
        return at == null ? -1 : at;
    }

    /** How many {@code policy.activated} receipts the log holds. */
    public long policyActivations() {
        return read(() -> policyActivations);
    }

    @Override
    public CallRecord call(String sessionId, String requestId) {
        StoredSession s = session(sessionId, false);
        return s == null ? null : call(s.key(), s.headPosition(), requestId);
    }

    @Override
    public CallRecord clientCall(String tokenRef, String requestId) {
        StoredClient c = client(tokenRef, false);
        return c == null ? null : call(c.key(), c.headPosition(), requestId);
    }

    /**
     * The call of the session or client stream keyed {@code streamKey}, whose latest receipt is at {@code head}, with
     * its receipts; null when there is none.
     */
    private CallRecord call(long streamKey, long head, String requestId) {
        CallKey key = new CallKey(streamKey, requestId);
        long before = position;
        StoredCall call = read(() -> calls.get(key));
        if (call == null) {
            Ahead ahead = readAhead.get().get(key);
            if (ahead != null && ahead.head() == head) {
                call = ahead.call();
            } else {
                call = store.call(streamKey, requestId);
                if (call != null) {
                    cacheIfNothingFolded(key, call, before);
                }
            }
        }
        return call == null ? null : records(List.of(call)).get(0);
    }

    /**
     * Reads from the store, in one query, the calls a batch is about to ask about that memory does not hold (of the
     * sessions and client streams it holds), so that deciding it asks the store nothing more for them: a new requestId
     * is an admission's common case, and each one would otherwise cost a query of its own that finds nothing. What
     * this thread read stands in for the store's answer to {@link #call} and {@link #clientCall} while the stream's
     * latest receipt is the one it had here: any decision on the stream since moves that receipt on, and the store is
     * asked again. Kept until this thread reads ahead again.
     */
    public void readAhead(List<WantedCall> wanted) {
        Map<CallKey, Ahead> ahead = readAhead.get();
        ahead.clear();
        Map<CallKey, Long> heads = new HashMap<>();
        read(() -> {
            for (WantedCall w : wanted) {
                // Only streams memory holds (the active ones, mostly): another would cost a read of its own here. The
                // head is read before the store is: a decision folded after it moves the head on.
                StoredClient c = w.client() ? clients.get(w.stream()) : null;
                StoredSession s = w.client() ? null : sessions.get(w.stream());
                if (c == null && s == null) {
                    continue;
                }
                CallKey key = new CallKey(c != null ? c.key() : s.key(), w.requestId());
                if (calls.get(key) == null) {
                    heads.put(key, c != null ? c.headPosition() : s.headPosition());
                }
            }
            return null;
        });
        if (heads.size() < 2) {
            // One call costs one query either way, when it is asked about.
            return;
        }
        Map<CallKey, StoredCall> stored = store.calls(heads.keySet());
        heads.forEach((key, head) -> ahead.put(key, new Ahead(head, stored.get(key))));
    }

    /**
     * Keeps what a reader found in the store, for the fold that usually follows (an outcome after its call was read),
     * but only when nothing was folded since before the store was read: else the value might already be an old one.
     */
    private void cacheIfNothingFolded(CallKey key, StoredCall call, long foldedBefore) {
        write(() -> {
            if (position == foldedBefore) {
                calls.cache(key, call);
            }
            return null;
        });
    }

    @Override
    public List<CallRecord> pendingCalls(String sessionId) {
        StoredSession s = session(sessionId, false);
        return s == null ? List.of() : pendingCalls(s.key());
    }

    @Override
    public List<CallRecord> clientPendingCalls(String tokenRef) {
        StoredClient c = client(tokenRef, false);
        return c == null ? List.of() : pendingCalls(c.key());
    }

    /** The pending calls of the session or client stream keyed {@code streamKey}, in decision order. */
    private List<CallRecord> pendingCalls(long streamKey) {
        // The changes in memory first, then the store: a flush between the two is then seen in one or the other.
        List<PendingChange> changes = new ArrayList<>();
        read(() -> {
            pending.forEachUnflushed((decision, change) -> {
                if (change.call().sessionKey() == streamKey) {
                    changes.add(change);
                }
            });
            return null;
        });
        TreeMap<Long, StoredCall> pendingCalls = new TreeMap<>();
        for (StoredCall call : store.pendingCalls(streamKey)) {
            pendingCalls.put(call.decision(), call);
        }
        for (PendingChange change : changes) {
            if (change.pending()) {
                pendingCalls.put(change.call().decision(), change.call());
            } else {
                pendingCalls.remove(change.call().decision());
            }
        }
        return records(new ArrayList<>(pendingCalls.values()));
    }

    /** Call records with their receipts, read from the log in one go. */
    private List<CallRecord> records(List<StoredCall> stored) {
        List<Long> positions = new ArrayList<>();
        for (StoredCall call : stored) {
            positions.add(call.decision());
            if (call.outcome() >= 0) {
                positions.add(call.outcome());
            }
            if (call.resolution() >= 0) {
                positions.add(call.resolution());
            }
        }
        Map<Long, LogReader.Entry> entries = log.entries(positions);
        List<CallRecord> records = new ArrayList<>(stored.size());
        for (StoredCall call : stored) {
            records.add(CallRecord.restored(call.requestId(), entries.get(call.decision()).receipt(), call.status(),
                    call.outcome() < 0 ? null : entries.get(call.outcome()).receipt(),
                    call.resolution() < 0 ? null : entries.get(call.resolution()).receipt()));
        }
        return records;
    }

    @Override
    public Receipt receipt(String receiptId) {
        return log.receipt(receiptId);
    }

    @Override
    public String capabilityOwner(String capabilityId) {
        String owner = read(() -> owners.get(capabilityId));
        return owner != null ? owner : store.capabilityOwner(capabilityId);
    }

    // ---------------------------------------------------------------- reads

    /**
     * A session with its key and head position, from memory or the store; {@code copy} gives a state the caller may
     * change (the snapshot a session aggregate is loaded from).
     */
    public StoredSession session(String id, boolean copy) {
        StoredSession s = read(() -> {
            StoredSession known = sessions.get(id);
            return known == null || !copy ? known
                    : new StoredSession(known.key(), known.state().copy(), known.headPosition());
        });
        return s != null ? s : store.session(id);
    }

    /**
     * A client stream with its key and head position, from memory or the store; {@code copy} gives a state the caller
     * may change (the snapshot a client aggregate is loaded from).
     */
    public StoredClient client(String tokenRef, boolean copy) {
        StoredClient c = read(() -> {
            StoredClient known = clients.get(tokenRef);
            return known == null || !copy ? known
                    : new StoredClient(known.key(), known.state().copy(), known.headPosition());
        });
        return c != null ? c : store.client(tokenRef);
    }

    /** The client object C (contract section 15), or empty when the tokenRef has no client stream. */
    public Optional<ObjectNode> clientView(String tokenRef) {
        StoredClient c = client(tokenRef, false);
        return c == null ? Optional.empty() : Optional.of(c.state().toJson());
    }

    /** The position of a client stream's latest receipt, or -1 when it has none. */
    public long clientHeadPosition(String tokenRef) {
        StoredClient c = client(tokenRef, false);
        return c == null ? -1 : c.headPosition();
    }

    /** The tokenRefs of the client streams in which {@code requestId} has a decision, in order. */
    public List<String> clientsWithRequest(String requestId) {
        flush();
        List<String> tokenRefs = new ArrayList<>();
        for (long key : store.sessionsWithRequest(requestId)) {
            String tokenRef = store.clientTokenRef(key);
            if (tokenRef != null) {
                tokenRefs.add(tokenRef);
            }
        }
        tokenRefs.sort(Comparator.naturalOrder());
        return tokenRefs;
    }

    /**
     * The tokenRefs of the client streams with admitted calls that have no outcome, as of now: what an edge's new
     * incarnation has to look through (contract section 15).
     */
    public List<String> clientsWithPendingCalls() {
        flush();
        return store.clientsWithPendingCalls();
    }

    /** The session object S, or empty when the id was never issued. */
    public Optional<ObjectNode> sessionView(String id) {
        StoredSession s = session(id, true);
        return s == null ? Optional.empty() : Optional.of(SessionView.toJson(s.state(), idleExpiry));
    }

    /** Sessions in id order after {@code after} (exclusive), active ones only when {@code activeOnly}. */
    public SessionPage sessions(boolean activeOnly, String after, int limit) {
        return sessions(activeOnly, after, limit, null);
    }

    /**
     * A page of sessions by id, after {@code after}; only those of the client token whose SHA-256 is {@code tokenRef}
     * when it is not null (what an edge may list, contract section 4). Without a {@code state} filter the page is read
     * from the store, a client's through its index of sessions by token.
     */
    public SessionPage sessions(boolean activeOnly, String after, int limit, String tokenRef) {
        List<SessionState> states = new ArrayList<>();
        if (activeOnly) {
            for (String id : after == null ? active.keySet() : active.tailMap(after, false).keySet()) {
                if (states.size() > limit) {
                    break;
                }
                StoredSession s = session(id, true);
                if (s != null && s.state().active() && (tokenRef == null || tokenRef.equals(s.state().tokenRef()))) {
                    states.add(s.state());
                }
            }
        } else {
            flush();
            List<StoredSession> read = tokenRef == null ? store.sessions(after, limit + 1)
                    : store.sessionsOf(tokenRef, after, limit + 1);
            read.forEach(s -> states.add(s.state()));
        }
        List<ObjectNode> page = new ArrayList<>();
        String next = null;
        for (SessionState s : states) {
            if (page.size() == limit) {
                next = page.get(page.size() - 1).path("id").asText();
                break;
            }
            page.add(SessionView.toJson(s, idleExpiry));
        }
        return new SessionPage(page, next);
    }

    public long activeSessions() {
        return active.size();
    }

    /** Active sessions idle longer than the expiry at {@code now}: the reaper's work list. */
    public List<String> idleSessions(Instant now) {
        List<String> idle = new ArrayList<>();
        active.forEach((id, last) -> {
            if (SessionState.idlePast(last, now, idleExpiry)) {
                idle.add(id);
            }
        });
        return idle;
    }

    /** True when the session is active and idle longer than the expiry at {@code now}. */
    public boolean isIdle(String id, Instant now) {
        Instant last = active.get(id);
        return last != null && SessionState.idlePast(last, now, idleExpiry);
    }

    /** The sessions in which {@code requestId} has a decision, in id order. */
    public List<String> sessionsWithRequest(String requestId) {
        flush();
        List<String> ids = new ArrayList<>();
        for (long key : store.sessionsWithRequest(requestId)) {
            String id = store.sessionId(key);
            if (id != null) {
                ids.add(id);
            }
        }
        ids.sort(Comparator.naturalOrder());
        return ids;
    }

    /** The position of a session's latest receipt, or -1 for an id never issued. */
    public long headPosition(String sessionId) {
        StoredSession s = session(sessionId, false);
        return s == null ? -1 : s.headPosition();
    }

    /** The position of the latest {@code policy.activated}, or -1. */
    public long policyPosition() {
        return read(() -> policyPosition);
    }

    /** How many receipts the projections hold: the position of the next one. */
    public long position() {
        return position;
    }

    /**
     * The projection digest at the position of a flush made for it: the stored sessions are streamed in id order
     * while no other flush runs, so the digest is that of one prefix of the log, never of a mixture.
     */
    public DigestView digest() {
        flushLock.lock();
        try {
            flushHeld();
            long at = read(() -> flushedPosition);
            String policyHash = read(() -> flushedPolicy);
            ProjectionDigest.Stream digest = new ProjectionDigest.Stream(policyHash);
            store.forEachClientView(digest::clientView);
            revoked.entrySet().stream()
                    .filter(e -> e.getValue() < at)
                    .map(Map.Entry::getKey)
                    .sorted()
                    .forEach(digest::revokedPrincipal);
            store.forEachSessionView(digest::sessionView);
            return new DigestView(at, digest.finish());
        } finally {
            flushLock.unlock();
        }
    }

    private <T> T read(Supplier<T> query) {
        lock.readLock().lock();
        try {
            return query.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    private <T> T write(Supplier<T> change) {
        lock.writeLock().lock();
        try {
            return change.get();
        } finally {
            lock.writeLock().unlock();
        }
    }
}
