package io.mcpledger.app.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.storage.ForcedWrites;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestDatabases.Kind;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Receipt;
import java.sql.Connection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.sql.Statement;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two sequencers on one database, each with connections of its own (as two ledger nodes have on PostgreSQL), integrate
 * while entries are appended: they take turns on the {@code log_head} lock and never fork the tree. Every checkpoint
 * either publishes is the only one of its size, consecutive ones are consistent, and both end at the same signed
 * checkpoint covering every entry. On PostgreSQL only: H2's row locks did not keep concurrent appenders apart (see
 * {@code LedgerLog.append}), and an H2 file is held by one process, which runs one sequencer.
 */
class LogSequencerStorageTest {
    private static final String ORIGIN = "ledger.test/sequencers";
    private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
    private static final LargeLog RECEIPTS = new LargeLog(ORIGIN, "0a1b2c3d", Instant.parse("2026-12-01T00:00:00Z"));

    private final TestDatabases databases = new TestDatabases();

    @AfterEach
    void closeAll() throws Exception {
        databases.close();
    }

    private static LogSequencer sequencer(DataSource database) throws Exception {
        return LogSequencer.open(database, new LedgerLog(database), ForcedWrites.never(), KEY, ORIGIN,
                LedgerSettings.StoreCaches.DEFAULT_TILES);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = "POSTGRESQL")
    void twoSequencersTakeTurnsAndNeverForkTheTree(Kind kind) throws Exception {
        DataSource first = databases.create(kind, 4, LedgerLog::create);
        DataSource second = databases.another(first, 4);
        List<LogSequencer> sequencers = List.of(sequencer(first), sequencer(second));

        Map<Long, String> published = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> forks = new ConcurrentLinkedQueue<>();
        AtomicBoolean appending = new AtomicBoolean(true);
        List<Thread> integrators = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (LogSequencer sequencer : sequencers) {
            Thread t = new Thread(() -> {
                try {
                    while (appending.get()) {
                        sequencer.integrate();
                        LogSequencer.Published p = sequencer.latest();
                        String before = published.putIfAbsent(p.size(), p.note());
                        if (before != null && !before.equals(p.note())) {
                            forks.add("size " + p.size());
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            t.start();
            integrators.add(t);
        }
        List<Receipt> appended = new ArrayList<>();
        try (Connection c = first.getConnection()) {
            for (int i = 0; i < 80; i++) {
                List<Receipt> batch = RECEIPTS.sessionReceipts(i, 1 + ThreadLocalRandom.current().nextInt(5));
                List<LedgerLog.Row> rows = new ArrayList<>();
                batch.forEach(r -> rows.add(new LedgerLog.Row(r.session(), r, null)));
                LedgerLog.append(c, rows, stream -> -1);
                c.commit();
                appended.addAll(batch);
                Thread.sleep(ThreadLocalRandom.current().nextInt(3));
            }
        } finally {
            appending.set(false);
            for (Thread t : integrators) {
                t.join();
            }
        }
        assertThat(failures).isEmpty();
        for (LogSequencer sequencer : sequencers) {
            sequencer.integrate();
            published.putIfAbsent(sequencer.latest().size(), sequencer.latest().note());
        }

        assertThat(forks).as("two checkpoints of one size").isEmpty();
        assertThat(sequencers.get(0).latest().size()).isEqualTo(appended.size());
        assertThat(sequencers.get(1).latest().note()).isEqualTo(sequencers.get(0).latest().note());
        VerifierKey verifier = VerifierKey.of(ORIGIN, KEY.publicKey());
        TreeMap<Long, byte[]> roots = new TreeMap<>();
        for (Map.Entry<Long, String> p : published.entrySet()) {
            Checkpoint checkpoint = Checkpoint.open(p.getValue(), verifier);
            assertThat(checkpoint.size()).isEqualTo(p.getKey());
            roots.put(p.getKey(), checkpoint.root());
        }
        assertThat(roots.size()).as("checkpoints published along the way").isGreaterThan(2);
        Map.Entry<Long, byte[]> previous = null;
        for (Map.Entry<Long, byte[]> next : roots.entrySet()) {
            if (previous != null && previous.getKey() > 0) {
                Merkle.verifyConsistency(previous.getKey(), next.getKey(),
                        sequencers.get(1).consistencyProof(previous.getKey(), next.getKey()), previous.getValue(),
                        next.getValue());
            }
            previous = next;
        }
        long size = appended.size();
        for (int i = 0; i < size; i += 7) {
            Merkle.verifyInclusion(i, size, Merkle.leafHash(appended.get(i).lineBytes()),
                    sequencers.get(0).inclusionProof(i, size), roots.get(size));
        }
    }

    /**
     * An integrator that dies in the middle of an integration (its tiles, head and checkpoint written, not committed:
     * here a transaction holding the {@code log_head} lock whose server process is then terminated, as a killed node's
     * connection is) holds up the others only until its connection is gone; then another integrates the same entries,
     * and the one checkpoint of that size is the survivor's.
     */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = "POSTGRESQL")
    void anIntegratorThatDiesMidIntegrationIsTakenOverAndLeavesNoCheckpointBehind(Kind kind) throws Exception {
        DataSource first = databases.create(kind, 4, LedgerLog::create);
        DataSource second = databases.another(first, 4);
        LogSequencer survivor = sequencer(second);
        sequencer(first);
        List<Receipt> appended = RECEIPTS.sessionReceipts(1, 5);
        try (Connection c = first.getConnection()) {
            List<LedgerLog.Row> rows = new ArrayList<>();
            appended.forEach(r -> rows.add(new LedgerLog.Row(r.session(), r, null)));
            LedgerLog.append(c, rows, stream -> -1);
            c.commit();
        }
        Connection dying = first.getConnection();
        long pid;
        try (Statement s = dying.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
                r.next();
                pid = r.getLong(1);
            }
            s.executeQuery("SELECT tree_size FROM log_head WHERE id = 1 FOR UPDATE").close();
            s.executeUpdate("UPDATE log_head SET tree_size = 5 WHERE id = 1");
            s.executeUpdate("INSERT INTO log_checkpoint (tree_size, note) VALUES (5, 'half-made by a dying node')");
        }
        ExecutorService integrator = Executors.newSingleThreadExecutor();
        try {
            Future<Long> integrated = integrator.submit(survivor::integrate);
            Thread.sleep(300);
            assertThat(integrated).as("waits for the lock the dying integrator holds").isNotDone();
            try (Connection killer = second.getConnection(); Statement s = killer.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
                killer.commit();
            }
            assertThat(integrated.get(30, TimeUnit.SECONDS)).isEqualTo(5);
        } finally {
            integrator.shutdownNow();
            try {
                dying.close();
            } catch (SQLException e) {
                // Terminated: nothing to close.
            }
        }
        String note = survivor.checkpoint(5).orElseThrow();
        Checkpoint checkpoint = Checkpoint.open(note, VerifierKey.of(ORIGIN, KEY.publicKey()));
        assertThat(checkpoint.size()).isEqualTo(5);
        assertThat(sequencer(first).latest().note()).isEqualTo(note);
    }
}
