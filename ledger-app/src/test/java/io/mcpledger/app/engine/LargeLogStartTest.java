package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.LedgerSchema;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.query.DigestView;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A ledger whose log holds a million receipts starts by folding only what its stored projections do not hold (spec
 * section 13), and {@code rebuild} folds all of it again to the same digest. The state is grown straight through the
 * store ({@link LargeLog}): a million receipts in 10,000 sessions of a hundred, integrated into the tree and folded
 * into stored projections by {@code rebuild}, then a tail the projections have not folded, as a crash leaves it. The
 * assertions count what was folded; how long it takes is measured in docs/benchmarks.md, not here.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LargeLogStartTest {
    static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    /** Receipts of the grown log; {@code -Dlarge.sessions} scales it (each session has 100). */
    static final int SESSIONS = Integer.getInteger("large.sessions", 10_000);
    static final int TAIL_SESSIONS = 10;
    static final int TAIL_PER_SESSION = 10;

    static Path dir;
    static LoadedState state;
    static long total;
    static DigestView afterStart;

    @BeforeAll
    static void growALargeState() throws Exception {
        dir = java.nio.file.Files.createTempDirectory("large-log");
        StateDirectory directory = new StateDirectory(dir);
        directory.init(null);
        state = directory.load(null);
        String keyId = LogKeys.keyId(state.origin(), state.signingKey().publicKey().raw());
        LargeLog log = new LargeLog(state.origin(), keyId, T0);
        try (H2Database database = H2Database.open(dir)) {
            LedgerSchema.prepare(database.dataSource(), database.forcedWrites());
            log.append(database, 0, SESSIONS, 100, true);
            LogSequencer.open(database.dataSource(), new LedgerLog(database.dataSource()), database.forcedWrites(),
                    state.signingKey(), state.origin(), LedgerSettings.StoreCaches.DEFAULT_TILES).integrate();
        }
        assertThat(run("rebuild", "--state", dir.toString()).exit()).isZero();
        try (H2Database database = H2Database.open(dir)) {
            total = log.append(database, SESSIONS, TAIL_SESSIONS, TAIL_PER_SESSION, false);
        }
    }

    @AfterAll
    static void deleteState() throws Exception {
        TestIo.deleteTree(dir);
    }

    @Test
    @Order(1)
    void aStartFoldsOnlyTheReceiptsAfterTheStoredProjections() throws Exception {
        try (LedgerEngine ledger = LedgerEngine.start(state, settings(), Clock.fixed(T0, ZoneOffset.UTC))) {
            assertThat(ledger.caughtUp()).isEqualTo((long) TAIL_SESSIONS * TAIL_PER_SESSION);
            assertThat(ledger.projector().position()).isEqualTo(total);
            assertThat(ledger.log().latest().size()).isEqualTo(total);
            assertThat(ledger.projector().activeSessions()).isEqualTo(TAIL_SESSIONS);
            assertThat(ledger.projector().sessionView(LargeLog.sessionId(SESSIONS)).orElseThrow().path("seq").asLong())
                    .isEqualTo(TAIL_PER_SESSION);
            assertThat(ledger.projector().sessionView(LargeLog.sessionId(0)).orElseThrow().path("state").asText())
                    .isEqualTo("deleted");
            afterStart = ledger.projector().digest();
        }
    }

    @Test
    @Order(2)
    void aStartAfterACleanStopFoldsNothing() throws Exception {
        try (LedgerEngine ledger = LedgerEngine.start(state, settings(), Clock.fixed(T0, ZoneOffset.UTC))) {
            assertThat(ledger.caughtUp()).isZero();
            assertThat(ledger.projector().digest()).isEqualTo(afterStart);
        }
    }

    @Test
    @Order(3)
    void rebuildFoldsTheWholeLogToTheDigestTheLedgerReported() throws Exception {
        TestIo.Run rebuild = run("rebuild", "--state", dir.toString());

        assertThat(rebuild.exit()).isZero();
        assertThat(rebuild.out()).contains("Rebuilt the projections from " + total + " log entries")
                .contains("Projection digest at tree size " + total + ": " + afterStart.digest());
    }

    @Test
    @Order(4)
    void rebuildRecreatesDroppedProjectionTables() throws Exception {
        try (H2Database database = H2Database.open(dir); Connection c = database.dataSource().getConnection();
             Statement s = c.createStatement()) {
            for (String table : List.of("projection_meta", "session_state", "call_state", "pending_call",
                    "capability_owner", "revoked_principal")) {
                s.execute("DROP TABLE " + table);
            }
            c.commit();
        }

        TestIo.Run rebuild = run("rebuild", "--state", dir.toString());

        assertThat(rebuild.exit()).isZero();
        assertThat(rebuild.out()).contains("Projection digest at tree size " + total + ": " + afterStart.digest());
    }

    static LedgerSettings settings() {
        return new LedgerSettings(dir, null, HostPort.parse("127.0.0.1:0"), null, Duration.ofDays(3650), 10_000,
                Duration.ofSeconds(1));
    }

    private static TestIo.Run run(String... args) {
        return TestIo.run(LedgerMain.commandLine(), args);
    }
}
