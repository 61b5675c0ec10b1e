package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestDatabases.Kind;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.query.LogReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The log's tables on each database the ledger stores in: what is read back is what was appended, in order, with its
 * links. On PostgreSQL, positions taken in the append's transaction from the {@code log_sequence} row leave concurrent
 * appends from several connections (as several nodes will make) without gaps, each batch's rows together and in order,
 * and a rolled-back append without trace. On PostgreSQL this runs against a server of the tests' own ({@link TestDatabases}).
 */
class LedgerLogStorageTest {
    private static final LargeLog RECEIPTS = new LargeLog("ledger.test/storage", "0a1b2c3d",
            Instant.parse("2026-12-01T00:00:00Z"));
    private static final AtomicInteger SESSIONS = new AtomicInteger();

    private final TestDatabases databases = new TestDatabases();

    @AfterEach
    void closeAll() throws Exception {
        databases.close();
    }

    private DataSource database(Kind which) throws Exception {
        return databases.create(which, 6, LedgerLog::create);
    }

    private static List<Receipt> session(int receipts) {
        return RECEIPTS.sessionReceipts(SESSIONS.incrementAndGet(), receipts);
    }

    private static List<LedgerLog.Row> rows(List<Receipt> receipts) {
        List<LedgerLog.Row> rows = new ArrayList<>();
        for (Receipt r : receipts) {
            rows.add(new LedgerLog.Row(r.session(), r, null));
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void whatIsAppendedIsReadBackInOrderWithItsLinks(Kind which) throws Exception {
        DataSource source = database(which);
        LedgerLog log = new LedgerLog(source);
        assertThat(log.size()).isZero();
        List<Receipt> first = session(3);
        List<Receipt> second = session(2);
        try (Connection c = source.getConnection()) {
            assertThat(LedgerLog.append(c, rows(first), stream -> -1)).isZero();
            c.commit();
            assertThat(LedgerLog.append(c, rows(second), stream -> -1)).isEqualTo(3);
            c.commit();
        }

        assertThat(log.size()).isEqualTo(5);
        List<Receipt> scanned = new ArrayList<>();
        log.scan(0, 5, entry -> scanned.add(entry.receipt()));
        List<Receipt> appended = new ArrayList<>(first);
        appended.addAll(second);
        assertThat(scanned).isEqualTo(appended);
        assertThat(scanned.get(4).hash()).isEqualTo(second.get(1).hash());
        assertThat(log.entry(3).receipt()).isEqualTo(second.get(0));
        assertThat(log.locate(first.get(2).id())).isEqualTo(new LedgerLog.Located(2, first.get(2)));
        assertThat(log.locate("no-such-receipt")).isNull();
        List<byte[]> lines = new ArrayList<>();
        log.lines(0, 5, (position, line) -> lines.add(line));
        assertThat(lines.get(1)).isEqualTo(first.get(1).lineBytes());
        Map<Long, LogReader.Entry> some = log.entries(List.of(4L, 0L));
        assertThat(some.get(4L).receipt()).isEqualTo(second.get(1));
        assertThat(some.get(0L).receipt()).isEqualTo(first.get(0));
    }

    /**
     * PostgreSQL only: on H2 two appends at once sometimes took one position (the primary key refused the second), so
     * the one process holding an H2 file makes its appends one at a time; see {@link LedgerLog#append}.
     */
    @ParameterizedTest
    @EnumSource(value = Kind.class, names = "POSTGRESQL")
    void concurrentAppendsLeaveNoGapsAndRolledBackOnesNoTrace(Kind which) throws Exception {
        DataSource source = database(which);
        Map<Long, List<Receipt>> committed = new ConcurrentHashMap<>();
        AtomicInteger rolledBack = new AtomicInteger();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                done.add(writers.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        List<Receipt> batch = session(1 + ThreadLocalRandom.current().nextInt(4));
                        try (Connection c = source.getConnection()) {
                            long first = LedgerLog.append(c, rows(batch), stream -> -1);
                            if (ThreadLocalRandom.current().nextInt(5) == 0) {
                                c.rollback();
                                rolledBack.incrementAndGet();
                            } else {
                                c.commit();
                                committed.put(first, batch);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            writers.shutdownNow();
        }

        LedgerLog log = new LedgerLog(source);
        long total = committed.values().stream().mapToLong(List::size).sum();
        assertThat(log.size()).isEqualTo(total);
        List<Receipt> scanned = new ArrayList<>();
        log.scan(0, total, entry -> scanned.add(entry.receipt()));
        for (Map.Entry<Long, List<Receipt>> batch : committed.entrySet()) {
            int at = Math.toIntExact(batch.getKey());
            assertThat(scanned.subList(at, at + batch.getValue().size())).isEqualTo(batch.getValue());
        }
        assertThat(rolledBack.get()).as("some appends were rolled back").isPositive();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSecondReceiptWithTheSameIdIsRefused(Kind which) throws Exception {
        DataSource source = database(which);
        List<Receipt> batch = session(2);
        try (Connection c = source.getConnection()) {
            LedgerLog.append(c, rows(batch), stream -> -1);
            c.commit();
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> LedgerLog.append(c, rows(batch.subList(1, 2)), stream -> -1))
                    .isInstanceOf(SQLException.class);
            c.rollback();
        }
        assertThat(new LedgerLog(source).size()).isEqualTo(2);
    }
}
