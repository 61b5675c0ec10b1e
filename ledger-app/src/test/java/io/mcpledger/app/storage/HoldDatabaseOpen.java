package io.mcpledger.app.storage;

import java.sql.Connection;
import java.sql.DriverManager;

/** Run in a second JVM by {@link H2DatabaseTest}: opens the database, says so, and holds it until stdin closes. */
public final class HoldDatabaseOpen {
    private HoldDatabaseOpen() {
    }

    public static void main(String[] args) throws Exception {
        try (Connection ignored = DriverManager.getConnection("jdbc:h2:file:" + args[0] + "/ledger", "sa", "")) {
            System.out.println("open");
            System.out.flush();
            while (System.in.read() >= 0) {
                // Wait for the test to close our stdin.
            }
        }
    }
}
