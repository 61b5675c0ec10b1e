package io.mcpledger.app.storage;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.LedgerEvents;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's tables in its database: the log's ({@link LedgerLog}) and the projections' ({@link SqlProjectionStore});
 * the transparency log's tree creates its own. A database written by the first version of the ledger, which kept its
 * receipts in Axon's event table, is moved to this layout on its first start: every stored event becomes the entry at
 * its place in the log's order (which the first version's tree already used), and the tree and its checkpoints stay
 * as they are.
 */
public final class LedgerSchema {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerSchema.class);
    /** Axon's event table of the first version. */
    static final String V1_EVENTS = "DOMAINEVENTENTRY";
    private static final int BATCH = 1_000;

    private LedgerSchema() {
    }

    /**
     * The layout of the ledger's tables this ledger writes: 2 since the log moved out of Axon's event table, 3 since a
     * session's activity has a table of its own (an older ledger would read each session's S without its latest
     * activity). A database whose metadata row names a newer one is refused.
     */
    public static final int SCHEMA_VERSION = 3;

    /** Creates what is missing and moves a first-version store to this layout; checks no metadata row. */
    public static void prepare(DataSource database, ForcedWrites forcedWrites) throws StorageException {
        prepare(database, database, forcedWrites, null, null);
    }

    /**
     * Creates what is missing in {@code database} (the log's tables, and the projections' in its
     * {@link LedgerDatabase#projections() projections}), moves a first-version H2 store to this layout, and checks the
     * metadata row: a database created by a ledger of another origin or key, or by a newer ledger, is refused; an
     * empty one gets the row of this one. Concurrent first starts of several nodes create everything once: the
     * creation holds a database lock ({@link SqlDialect#lockSchema}).
     */
    public static void prepare(LedgerDatabase database, String origin, String publicKey) throws StorageException {
        prepare(database.dataSource(), database.projections(), database.forcedWrites(), origin, publicKey);
    }

    /** As {@link #prepare(LedgerDatabase, String, String)}, for a process that reads only the log ({@code export}). */
    public static void prepareLog(LedgerDatabase database, String origin, String publicKey) throws StorageException {
        // On H2 the projections' tables are beside the log's, and moving a first-version store empties them.
        prepare(database.dataSource(), database.shared() ? null : database.dataSource(), database.forcedWrites(),
                origin, publicKey);
    }

    private static void prepare(DataSource database, DataSource projections, ForcedWrites forcedWrites, String origin,
            String publicKey) throws StorageException {
        try (Connection c = database.getConnection()) {
            try {
                SqlDialect dialect = SqlDialect.of(c);
                dialect.lockSchema(c);
                LedgerLog.create(c);
                if (origin != null) {
                    checkMetadata(c, dialect, origin, publicKey);
                }
                if (projections == database) {
                    SqlProjectionStore.create(c);
                }
                c.commit();
                if (dialect == SqlDialect.H2 && tableExists(c, V1_EVENTS)) {
                    migrateFromV1(c);
                }
                c.commit();
                forcedWrites.force();
            } catch (SQLException | StorageException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException("cannot prepare the ledger's tables: " + e.getMessage(), e);
        }
        if (projections != null && projections != database) {
            try (Connection c = projections.getConnection()) {
                try {
                    SqlProjectionStore.create(c);
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                throw new StorageException("cannot prepare this node's projection tables: " + e.getMessage(), e);
            }
        }
    }

    /**
     * The one metadata row: which ledger's log the database holds (its origin and public key) and in which layout.
     * Written by the first start, compared by every later one.
     */
    private static void checkMetadata(Connection c, SqlDialect dialect, String origin, String publicKey)
            throws SQLException, StorageException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS ledger_meta (id INT PRIMARY KEY, schema_version INT NOT NULL,"
                    + " origin VARCHAR(1024) NOT NULL, public_key VARCHAR(128) NOT NULL)");
        }
        try (PreparedStatement s = c.prepareStatement(
                "SELECT schema_version, origin, public_key FROM ledger_meta WHERE id = 1");
             ResultSet r = s.executeQuery()) {
            if (r.next()) {
                int version = r.getInt(1);
                String storedOrigin = r.getString(2);
                String storedKey = r.getString(3);
                if (version > SCHEMA_VERSION) {
                    throw new MismatchedDatabaseException("the database was written by a newer ledger (schema "
                            + version + "); this one knows schema " + SCHEMA_VERSION + " and changes nothing in it");
                }
                if (!storedOrigin.equals(origin) || !storedKey.equals(publicKey)) {
                    throw new MismatchedDatabaseException("the database holds the log of origin '" + storedOrigin
                            + "' with public key " + storedKey + ", not this state directory's (origin '" + origin
                            + "', public key " + publicKey + "); start every node from a copy of one state directory");
                }
                if (version < SCHEMA_VERSION) {
                    try (PreparedStatement u = c.prepareStatement(
                            "UPDATE ledger_meta SET schema_version = ? WHERE id = 1")) {
                        u.setInt(1, SCHEMA_VERSION);
                        u.executeUpdate();
                    }
                }
                return;
            }
        }
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO ledger_meta (id, schema_version, origin, public_key) VALUES (1, ?, ?, ?)")) {
            s.setInt(1, SCHEMA_VERSION);
            s.setString(2, origin);
            s.setString(3, publicKey);
            s.executeUpdate();
        }
    }

    /**
     * Copies the first version's events into the log in their log order (their global-index order: the tree's runs
     * only skipped the gaps of rolled-back inserts), then drops what that version kept for Axon and for mapping leaf
     * indexes to global indexes. Each step can run again: until the old event table is dropped, last, a start that
     * finds it copies everything again from the beginning.
     */
    private static void migrateFromV1(Connection c) throws SQLException {
        long started = System.nanoTime();
        try (Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE ledger_entry");
            s.execute("UPDATE log_sequence SET next = 0 WHERE id = 1");
            for (String table : SqlProjectionStore.TABLES) {
                s.execute("TRUNCATE TABLE " + table);
            }
        }
        c.commit();
        Map<String, Long> heads = new HashMap<>();
        long copied = 0;
        List<LedgerLog.Row> rows = new ArrayList<>(BATCH);
        try (PreparedStatement s = c.prepareStatement("SELECT payloadType, payloadRevision, payload FROM "
                + V1_EVENTS + " ORDER BY globalIndex")) {
            s.setFetchSize(BATCH);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(v1Row(r.getString(2), r.getBytes(3)));
                    if (rows.size() == BATCH) {
                        copied += appendRows(c, rows, heads);
                    }
                }
            }
        }
        copied += appendRows(c, rows, heads);
        c.commit();
        try (Statement s = c.createStatement()) {
            if (columnExists(c, "LOG_HEAD", "LAST_GLOBAL_INDEX")) {
                s.execute("ALTER TABLE log_head DROP COLUMN last_global_index");
            }
            s.execute("DROP TABLE IF EXISTS log_run");
            s.execute("DROP TABLE IF EXISTS SnapshotEventEntry");
            s.execute("DROP TABLE IF EXISTS TokenEntry");
            s.execute("DROP TABLE " + V1_EVENTS);
        }
        LOG.info("Moved {} receipts from the first version's event table to the log in {} ms", copied,
                (System.nanoTime() - started) / 1_000_000);
    }

    private static long appendRows(Connection c, List<LedgerLog.Row> rows, Map<String, Long> heads)
            throws SQLException {
        if (rows.isEmpty()) {
            return 0;
        }
        long first = LedgerLog.append(c, rows, stream -> heads.getOrDefault(stream, -1L));
        for (int i = 0; i < rows.size(); i++) {
            heads.put(rows.get(i).stream(), first + i);
        }
        int n = rows.size();
        rows.clear();
        return n;
    }

    /**
     * One first-version event: the receipt's line itself (revision {@code receipt-line}), or Axon's Jackson form
     * {@code {"receipt": LINE, ...}}, with {@code "document"} for a policy activation.
     */
    private static LedgerLog.Row v1Row(String revision, byte[] payload) throws SQLException {
        String text = new String(payload, StandardCharsets.UTF_8);
        try {
            String line;
            String document = null;
            if ("receipt-line".equals(revision)) {
                line = text;
            } else {
                JsonNode node = Canonical.parse(text);
                line = node.path("receipt").asText();
                document = node.hasNonNull("document") ? node.get("document").asText() : null;
            }
            Receipt receipt = Receipt.parse(line);
            PolicyDocument policy = receipt.kind() == ReceiptKind.POLICY_ACTIVATED
                    ? PolicyDocument.fromCanonical(document) : null;
            return new LedgerLog.Row(LedgerEvents.stream(LedgerEvents.of(receipt, policy)), receipt, policy);
        } catch (IOException | InvalidReceiptException | InvalidPolicyException | RuntimeException e) {
            throw new SQLException("a stored event of the first version cannot be read: " + e.getMessage(), e);
        }
    }

    private static boolean tableExists(Connection c, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES"
                + " WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = ?")) {
            s.setString(1, table);
            try (ResultSet r = s.executeQuery()) {
                return r.next() && r.getLong(1) > 0;
            }
        }
    }

    private static boolean columnExists(Connection c, String table, String column) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
            s.setString(1, table);
            s.setString(2, column);
            try (ResultSet r = s.executeQuery()) {
                return r.next() && r.getLong(1) > 0;
            }
        }
    }
}
