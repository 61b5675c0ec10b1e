package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.testing.TestIo;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A state written by version 1 (resources {@code v1-state/}: every kind of receipt, made by {@code make-v1-state.sh}
 * with the v1 jar, with the projection digest v1 reported and the bundle v1 exported) opens with this version: its
 * events move into the log table in their order, the projections are folded from them to the digest v1 reported, and
 * the log exports byte for byte as v1 exported it.
 */
class V1StateUpgradeTest {
    private static final String V1_DIGEST = "aa65c64e3945bba1dc700ba38b33b8553036bcff38cb3db8d515d75ce0ddff01";
    private static final int V1_RECEIPTS = 83;

    @TempDir
    Path work;

    @Test
    void rebuildOnAV1StateGivesTheDigestV1Reported() throws Exception {
        Path state = copyV1State();

        TestIo.Run rebuild = TestIo.run(LedgerMain.commandLine(), "rebuild", "--state", state.toString());

        assertThat(rebuild.exit()).as(rebuild.err()).isZero();
        assertThat(rebuild.out()).contains("Rebuilt the projections from " + V1_RECEIPTS + " log entries")
                .contains("Projection digest at tree size " + V1_RECEIPTS + ": " + V1_DIGEST);
        try (H2Database database = H2Database.open(state); Connection c = database.dataSource().getConnection();
             ResultSet tables = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT));
            }
            assertThat(names).contains("ledger_entry", "session_state", "call_state")
                    .doesNotContain("domainevententry", "snapshotevententry", "tokenentry");
        }
    }

    @Test
    void aV1StateStartsWithV1sDigestAndExportsV1sBundle() throws Exception {
        Path state = copyV1State();
        try (LedgerEngine ledger = LedgerEngine.start(new StateDirectory(state).load(null),
                new LedgerSettings(state, null, HostPort.parse("127.0.0.1:0"), null, Duration.ofDays(3650), 10_000,
                        Duration.ofSeconds(1)), Clock.systemUTC())) {
            assertThat(ledger.caughtUp()).isEqualTo(V1_RECEIPTS);
            assertThat(ledger.projector().digest().digest()).isEqualTo(V1_DIGEST);
        }
        Path bundle = work.resolve("bundle");

        TestIo.Run export = TestIo.run(LedgerMain.commandLine(), "export", "--state", state.toString(), "--out",
                bundle.toString());

        assertThat(export.exit()).as(export.err()).isZero();
        Path v1Bundle = resource("v1-state/bundle");
        for (String file : List.of("entries.jsonl", "checkpoint", "public-key.pem", "vkey")) {
            assertThat(Files.readAllBytes(bundle.resolve(file))).as(file)
                    .isEqualTo(Files.readAllBytes(v1Bundle.resolve(file)));
        }
    }

    /** The v1 state, copied: a start changes the file. */
    private Path copyV1State() throws URISyntaxException {
        Path to = work.resolve("state");
        TestIo.copyTree(resource("v1-state/state"), to);
        return to;
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(V1StateUpgradeTest.class.getClassLoader().getResource(name).toURI());
    }
}
