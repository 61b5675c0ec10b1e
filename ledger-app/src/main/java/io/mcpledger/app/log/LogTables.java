package io.mcpledger.app.log;

import io.mcpledger.app.storage.SignedCheckpoints;
import io.mcpledger.app.storage.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * The transparency log's tree, next to the log's entries ({@code ledger_entry}) in the same database, so a checkpoint is
 * committed with the tree it signs:
 * <ul>
 *   <li>{@code log_head}: one row, the integrated size; integration locks it ({@code SELECT ... FOR UPDATE}), so two
 *       sequencers on one database take turns and never fork the tree;</li>
 *   <li>{@code log_tile}: C2SP tlog-tiles, each up to 256 hashes of one tree level ({@code 8 * tile_level}); the
 *       rightmost tile of a level is rewritten as it fills;</li>
 *   <li>{@code log_checkpoint}: every published signed checkpoint, by tree size ({@link SignedCheckpoints}, which
 *       an open of H2 after an unclean stop also writes, from the journal).</li>
 * </ul>
 */
final class LogTables {
    private LogTables() {
    }

    /** Creates the tree's tables when missing, in H2 or PostgreSQL. */
    static void create(Connection c) throws SQLException {
        SqlDialect dialect = SqlDialect.of(c);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS log_head (id INT PRIMARY KEY, tree_size BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS log_tile (tile_level INT NOT NULL, tile_index BIGINT NOT NULL,"
                    + " hashes " + dialect.bytes(8192) + " NOT NULL, PRIMARY KEY (tile_level, tile_index))");
            s.execute("CREATE TABLE IF NOT EXISTS log_checkpoint (tree_size BIGINT PRIMARY KEY,"
                    + " note VARCHAR(4096) NOT NULL)");
            s.execute("INSERT INTO log_head (id, tree_size) SELECT 1, 0 WHERE NOT EXISTS"
                    + " (SELECT 1 FROM log_head WHERE id = 1)");
        }
    }

    /** The integrated size; with {@code lock}, the row stays locked until the transaction ends. */
    static long treeSize(Connection c, boolean lock) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT tree_size FROM log_head WHERE id = 1"
                + (lock ? " FOR UPDATE" : ""));
             ResultSet r = s.executeQuery()) {
            if (!r.next()) {
                throw new SQLException("the log_head row is missing");
            }
            return r.getLong(1);
        }
    }

    static void updateTreeSize(Connection c, long size) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE log_head SET tree_size = ? WHERE id = 1")) {
            s.setLong(1, size);
            s.executeUpdate();
        }
    }

    /** The stored hashes of one tile, or null when it has none yet. */
    static byte[] tile(Connection c, int level, long index) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT hashes FROM log_tile WHERE tile_level = ? AND tile_index = ?")) {
            s.setInt(1, level);
            s.setLong(2, index);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getBytes(1) : null;
            }
        }
    }

    static void writeTiles(Connection c, Map<Long, byte[]> tiles) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                SqlDialect.of(c).upsert("log_tile", 2, "tile_level", "tile_index", "hashes"))) {
            for (Map.Entry<Long, byte[]> tile : tiles.entrySet()) {
                s.setInt(1, TileKey.level(tile.getKey()));
                s.setLong(2, TileKey.index(tile.getKey()));
                s.setBytes(3, tile.getValue());
                s.addBatch();
            }
            s.executeBatch();
        }
    }
}
