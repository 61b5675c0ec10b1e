package io.mcpledger.app.http;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP tests that share one running ledger per class (starting one costs seconds), each test on sessions of
 * its own; {@link #ownState} is there for the tests that need a ledger to themselves (a restart, a cap).
 */
abstract class SharedLedgerTest {
    @TempDir
    static Path sharedState;
    static HttpLedger ledger;

    @TempDir
    Path ownState;

    @BeforeAll
    static void startSharedLedger() throws Exception {
        ledger = HttpLedger.start(sharedState);
    }

    @AfterAll
    static void stopSharedLedger() {
        ledger.close();
    }
}
