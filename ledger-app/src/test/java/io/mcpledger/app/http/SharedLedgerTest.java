package io.mcpledger.app.http;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import java.nio.file.Files;

/**
 * HTTP tests that share one running ledger per class (starting one costs seconds), each test on sessions of
 * its own; {@link #ownState} is there for the tests that need a ledger to themselves (a restart, a cap).
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
abstract class SharedLedgerTest {
    @TempDir
    static Path sharedState;
    static HttpLedger ledger;

    @TempDir
    Path ownState;

    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    @BeforeParameterizedClassInvocation
    static void startSharedLedger(TestDatabases.Kind database) throws Exception {
        ledger = HttpLedger.start(database, Files.createDirectories(sharedState.resolve(database.name())));
    }

    @AfterParameterizedClassInvocation
    static void stopSharedLedger() {
        ledger.close();
    }
}
