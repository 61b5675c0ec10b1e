package io.mcpledger.app.storage;

import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.query.LogReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import javax.sql.DataSource;

/**
 * The log: every receipt's exact line at its position, the durable truth everything else is folded from. Positions are
 * the transparency log's leaf indexes, assigned in the transaction that appends the receipts (from the
 * {@code log_sequence} row, locked for the transaction), so they are contiguous, in commit order, and fixed at the
 * first answer, however many writers append.
 *
 * <p>One table, {@code ledger_entry}, keyed by position: each commit adds rows at its end and touches no page in the
 * middle of the file. Its one index, on the receipt id, grows at its end too, because receipt ids begin with their
 * time. {@code prev_position} links each receipt to the previous one of its stream, so a stream is read without an
 * index of streams; {@code document} holds the policy a {@code policy.activated} receipt activated.
 */
public final class LedgerLog implements LogReader {
    /** A receipt to append, the stream it belongs to, and for {@code policy.activated} the policy. */
    public record Row(String stream, Receipt receipt, PolicyDocument policy) {
    }

    /** Positions per {@code IN} list when entries are read together. */
    private static final int IN_LIST = 500;

    private final DataSource database;

    public LedgerLog(DataSource database) {
        this.database = database;
    }

    /**
     * Creates the log's tables when missing, in H2 or PostgreSQL. {@code log_sequence}'s one row is where positions
     * come from: an append moves it on by n, which locks it until the append's transaction ends, and takes the n
     * positions below its new value, so positions are gapless and in commit order, on PostgreSQL with any number of
     * writers (Tessera's MySQL driver orders its log with such a row); on H2, appends must come one at a time.
     */
    public static void create(Connection c) throws SQLException {
        String bytes = SqlDialect.of(c).bytes();
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS ledger_entry (position BIGINT PRIMARY KEY,"
                    + " receipt_id VARCHAR(128) NOT NULL, prev_position BIGINT, line " + bytes + " NOT NULL,"
                    + " document " + bytes + ")");
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS ledger_entry_receipt_id ON ledger_entry (receipt_id)");
            s.execute("CREATE TABLE IF NOT EXISTS log_sequence (id INT PRIMARY KEY, next BIGINT NOT NULL)");
            s.execute("INSERT INTO log_sequence (id, next) SELECT 1, 0 WHERE NOT EXISTS"
                    + " (SELECT 1 FROM log_sequence WHERE id = 1)");
        }
    }

    /**
     * Appends rows in the caller's transaction at the next positions, which this transaction holds until it ends;
     * returns the first. Each row links to the previous receipt of its stream: one earlier in {@code rows}, else the
     * stream's latest committed one ({@code committedHead}, -1 for none). Nothing is visible to others, and no position
     * is taken, until the transaction commits.
     */
    public static long append(Connection c, List<Row> rows, ToLongFunction<String> committedHead) throws SQLException {
        long first = reserve(c, rows.size());
        insert(c, first, rows, committedHead);
        return first;
    }

    /**
     * Takes the next {@code n} positions in the caller's transaction and returns the first: every position before it
     * is committed, and no other append can commit until this transaction ends. Then {@link #insert} the rows.
     */
    public static long reserve(Connection c, int n) throws SQLException {
        // The row is moved on first and read after: on PostgreSQL the UPDATE waits for any other append holding the
        // row and then adds to the value that append committed. H2 (2.5.252, READ COMMITTED) does not: with appends
        // from several connections at once, both this and SELECT ... FOR UPDATE sometimes gave two appends one
        // position (LedgerLogStorageTest found it; the primary key then refused the second). On H2 the one process
        // that holds the file serializes its appends instead (GroupCommitCommandBus's append lock). PostgreSQL returns
        // the value it wrote with the update, one round trip for both.
        if (SqlDialect.of(c) == SqlDialect.POSTGRESQL) {
            try (PreparedStatement s = c.prepareStatement(
                    "UPDATE log_sequence SET next = next + ? WHERE id = 1 RETURNING next")) {
                s.setLong(1, n);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        throw new SQLException("the log_sequence row is missing");
                    }
                    return r.getLong(1) - n;
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("UPDATE log_sequence SET next = next + ? WHERE id = 1")) {
            s.setLong(1, n);
            if (s.executeUpdate() != 1) {
                throw new SQLException("the log_sequence row is missing");
            }
        }
        try (PreparedStatement s = c.prepareStatement("SELECT next FROM log_sequence WHERE id = 1");
             ResultSet r = s.executeQuery()) {
            if (!r.next()) {
                throw new SQLException("the log_sequence row is missing");
            }
            return r.getLong(1) - n;
        }
    }

    /**
     * Locks the {@code log_sequence} row in the caller's transaction until it ends, as {@link #reserve} does, and
     * returns the log's committed size: no other append can commit meanwhile, so every entry before it is committed
     * and none is added.
     */
    public static long lock(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT next FROM log_sequence WHERE id = 1 FOR UPDATE");
             ResultSet r = s.executeQuery()) {
            if (!r.next()) {
                throw new SQLException("the log_sequence row is missing");
            }
            return r.getLong(1);
        }
    }

    /**
     * Inserts rows at the positions {@link #reserve} took from {@code first} on, and returns them as inserted (what
     * the journal of an H2 store keeps, {@link JdbcTransactionManager#journal}). Each row links to the previous
     * receipt of its stream: one earlier in {@code rows}, else the stream's latest committed one ({@code
     * committedHead}, -1 for none).
     */
    public static ReceiptJournal.Batch insert(Connection c, long first, List<Row> rows,
            ToLongFunction<String> committedHead) throws SQLException {
        List<ReceiptJournal.Entry> entries = new ArrayList<>(rows.size());
        long position = first;
        Map<String, Long> heads = new HashMap<>();
        for (Row row : rows) {
            Long inBatch = heads.put(row.stream(), position);
            long prev = inBatch != null ? inBatch : committedHead.applyAsLong(row.stream());
            entries.add(new ReceiptJournal.Entry(position++, row.receipt().id(), prev < 0 ? -1 : prev,
                    row.receipt().lineBytes(),
                    row.policy() == null ? null : row.policy().canonicalJson().getBytes(StandardCharsets.UTF_8)));
        }
        write(c, "INSERT INTO ledger_entry" + COLUMNS + " VALUES (?, ?, ?, ?, ?)", entries);
        return new ReceiptJournal.Batch(first, entries);
    }

    private static final String COLUMNS = " (position, receipt_id, prev_position, line, document)";

    private static void write(Connection c, String statement, List<ReceiptJournal.Entry> entries) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(statement)) {
            for (ReceiptJournal.Entry entry : entries) {
                s.setLong(1, entry.position());
                s.setString(2, entry.receiptId());
                if (entry.prev() < 0) {
                    s.setNull(3, Types.BIGINT);
                } else {
                    s.setLong(3, entry.prev());
                }
                s.setBytes(4, entry.line());
                if (entry.document() == null) {
                    s.setNull(5, Types.VARBINARY);
                } else {
                    s.setBytes(5, entry.document());
                }
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /**
     * Stores again, on H2, the entries of {@code batches} (a journal's, {@link ReceiptJournal#read}) that the log does
     * not hold, and moves {@code log_sequence} past them; returns how many entries were missing. An entry the log holds
     * is written again as the journal has it (the same row, as its commit inserted it): a version that a scan of the
     * file recovered may hold part of a commit.
     */
    static int replay(Connection c, List<ReceiptJournal.Batch> batches) throws SQLException {
        if (batches.isEmpty()) {
            return 0;
        }
        long held = lock(c);
        long first = batches.get(0).first();
        if (first > held) {
            throw new SQLException("the journal begins at position " + first + " but the log holds " + held
                    + " entries: the entries between are lost; restore the state directory from a backup");
        }
        List<ReceiptJournal.Entry> entries = new ArrayList<>();
        batches.forEach(batch -> entries.addAll(batch.entries()));
        write(c, "MERGE INTO ledger_entry" + COLUMNS + " KEY (position) VALUES (?, ?, ?, ?, ?)", entries);
        long end = Math.max(held, batches.get(batches.size() - 1).end());
        int missing = (int) (end - held);
        try (PreparedStatement s = c.prepareStatement("UPDATE log_sequence SET next = ? WHERE id = 1")) {
            s.setLong(1, end);
            s.executeUpdate();
        }
        return missing;
    }

    @Override
    public long size() {
        try (Connection c = Reads.connection(database);
             PreparedStatement s = c.prepareStatement("SELECT next FROM log_sequence WHERE id = 1");
             ResultSet r = s.executeQuery()) {
            long size = r.next() ? r.getLong(1) : 0;
            Reads.end(c);
            return size;
        } catch (SQLException e) {
            throw failure("read the log's size", e);
        }
    }

    @Override
    public Entry entry(long position) {
        try (Connection c = Reads.connection(database);
             PreparedStatement s = c.prepareStatement("SELECT line, document FROM ledger_entry WHERE position = ?")) {
            s.setLong(1, position);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("the log has no entry " + position);
                }
                Entry entry = entry(position, r.getBytes(1), r.getBytes(2));
                Reads.end(c);
                return entry;
            }
        } catch (SQLException e) {
            throw failure("read log entry " + position, e);
        }
    }

    /** The entries at these positions, read a few hundred at a time. */
    @Override
    public Map<Long, Entry> entries(Collection<Long> positions) {
        Map<Long, Entry> entries = new HashMap<>();
        List<Long> wanted = new ArrayList<>(new TreeSet<>(positions));
        for (int from = 0; from < wanted.size(); from += IN_LIST) {
            List<Long> chunk = wanted.subList(from, Math.min(wanted.size(), from + IN_LIST));
            String marks = String.join(", ", Collections.nCopies(chunk.size(), "?"));
            try (Connection c = Reads.connection(database);
                 PreparedStatement s = c.prepareStatement("SELECT position, line, document FROM ledger_entry"
                         + " WHERE position IN (" + marks + ")")) {
                for (int i = 0; i < chunk.size(); i++) {
                    s.setLong(i + 1, chunk.get(i));
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        entries.put(r.getLong(1), entry(r.getLong(1), r.getBytes(2), r.getBytes(3)));
                    }
                }
                Reads.end(c);
            } catch (SQLException e) {
                throw failure("read " + chunk.size() + " log entries", e);
            }
        }
        for (long position : wanted) {
            if (!entries.containsKey(position)) {
                throw new IllegalStateException("the log has no entry " + position);
            }
        }
        return entries;
    }

    /** The position of the previous receipt of entry {@code position}'s stream, or -1 when it is the first. */
    public long prevPosition(long position) {
        try (Connection c = Reads.connection(database);
             PreparedStatement s = c.prepareStatement("SELECT prev_position FROM ledger_entry WHERE position = ?")) {
            s.setLong(1, position);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("the log has no entry " + position);
                }
                long prev = r.getLong(1);
                boolean none = r.wasNull();
                Reads.end(c);
                return none ? -1 : prev;
            }
        } catch (SQLException e) {
            throw failure("read log entry " + position, e);
        }
    }

    @Override
    public void scan(long from, long to, EntryConsumer consumer) {
        long next = from;
        while (next < to) {
            long end = Math.min(to, next + 10_000);
            try (Connection c = database.getConnection();
                 PreparedStatement s = c.prepareStatement("SELECT position, line, document FROM ledger_entry"
                         + " WHERE position >= ? AND position < ? ORDER BY position")) {
                s.setLong(1, next);
                s.setLong(2, end);
                s.setFetchSize(1_000);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        long position = r.getLong(1);
                        if (position != next) {
                            throw new IllegalStateException("the log has no entry " + next + " (found " + position
                                    + ")");
                        }
                        consumer.accept(entry(position, r.getBytes(2), r.getBytes(3)));
                        next++;
                    }
                }
                Reads.end(c);
            } catch (SQLException e) {
                throw failure("read the log from entry " + next, e);
            }
            if (next < end) {
                throw new IllegalStateException("the log ends at entry " + next + ", before " + to);
            }
        }
    }

    /** The lines of entries {@code from} (inclusive) to {@code to} (exclusive), as stored. */
    public void lines(long from, long to, LineConsumer consumer) {
        try (Connection c = database.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT position, line FROM ledger_entry"
                     + " WHERE position >= ? AND position < ? ORDER BY position")) {
            s.setLong(1, from);
            s.setLong(2, to);
            s.setFetchSize(1_000);
            try (ResultSet r = s.executeQuery()) {
                long next = from;
                while (r.next()) {
                    if (r.getLong(1) != next) {
                        throw new IllegalStateException("the log has no entry " + next);
                    }
                    consumer.accept(next++, r.getBytes(2));
                }
                if (next < to) {
                    throw new IllegalStateException("the log ends at entry " + next + ", before " + to);
                }
            }
            Reads.end(c);
        } catch (SQLException e) {
            throw failure("read the log from entry " + from, e);
        }
    }

    /** Told of each stored line, in order. */
    @FunctionalInterface
    public interface LineConsumer {
        void accept(long position, byte[] line);
    }

    @Override
    public Receipt receipt(String receiptId) {
        Located located = locate(receiptId);
        return located == null ? null : located.receipt();
    }

    /** A receipt and its position. */
    public record Located(long position, Receipt receipt) {
    }

    /** The committed receipt with this id and its position, or null. */
    public Located locate(String receiptId) {
        try (Connection c = Reads.connection(database);
             PreparedStatement s = c.prepareStatement("SELECT position, line FROM ledger_entry WHERE receipt_id = ?")) {
            s.setString(1, receiptId);
            try (ResultSet r = s.executeQuery()) {
                Located located = r.next() ? new Located(r.getLong(1), parse(r.getLong(1), r.getBytes(2))) : null;
                Reads.end(c);
                return located;
            }
        } catch (SQLException e) {
            throw failure("look up receipt " + receiptId, e);
        }
    }

    private static Entry entry(long position, byte[] line, byte[] document) {
        Receipt receipt = parse(position, line);
        PolicyDocument policy = null;
        if (receipt.kind() == ReceiptKind.POLICY_ACTIVATED) {
            if (document == null) {
                throw new IllegalStateException("log entry " + position + " activates a policy the log does not hold");
            }
            try {
                policy = PolicyDocument.fromCanonical(new String(document, StandardCharsets.UTF_8));
            } catch (InvalidPolicyException e) {
                throw new IllegalStateException("the policy of log entry " + position + " no longer validates: "
                        + e.getMessage(), e);
            }
        }
        return new Entry(position, receipt, policy);
    }

    private static Receipt parse(long position, byte[] line) {
        try {
            return Receipt.parse(line);
        } catch (InvalidReceiptException e) {
            throw new IllegalStateException("log entry " + position + " is not a receipt: " + e.getMessage(), e);
        }
    }

    private static IllegalStateException failure(String what, SQLException e) {
        return new IllegalStateException("cannot " + what + ": " + e.getMessage(), e);
    }
}
