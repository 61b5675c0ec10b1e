package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The rows of {@code log_checkpoint}: every signed checkpoint the log published, by tree size. The sequencer stores
 * one with the tree it signs; an open of H2 after an unclean stop stores again those its journal holds and the
 * recovered store lost ({@link ReceiptJournal#appendCheckpoint}), before the tree reaches their size again. Both
 * write through {@link #keep}, which never replaces a row: a second, different note for one size would be the log
 * signing two trees of that size.
 */
public final class SignedCheckpoints {
    private SignedCheckpoints() {
    }

    /**
     * Stores {@code note} as the checkpoint of {@code size} unless that row is there already with the same note, and
     * says whether it stored it; fails when the row holds another one.
     */
    public static boolean keep(Connection c, long size, String note) throws SQLException {
        String stored = note(c, size);
        if (stored == null) {
            try (PreparedStatement s = c.prepareStatement(
                    "INSERT INTO log_checkpoint (tree_size, note) VALUES (?, ?)")) {
                s.setLong(1, size);
                s.setString(2, note);
                s.executeUpdate();
            }
            return true;
        }
        if (!stored.equals(note)) {
            throw new SQLException("the log holds another signed checkpoint of size " + size + " than the one to"
                    + " store, so two trees of that size would be signed: the state directory is damaged or mixes two"
                    + " ledgers' files; restore it from a backup");
        }
        return false;
    }

    /** The signed checkpoint published at {@code size}, or null when none was. */
    public static String note(Connection c, long size) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT note FROM log_checkpoint WHERE tree_size = ?")) {
            s.setLong(1, size);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }
}
