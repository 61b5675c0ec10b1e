package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.session.Edge;
import io.mcpledger.domain.session.InitializeSession;
import io.mcpledger.domain.session.RandomIds;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.SessionIds;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ledger-app export} (contract section 9): the bundle of a stopped ledger, and the refusals that write nothing. A
 * ledger still running in another process is refused too: {@code ExportIT} shows it with the real jar.
 */
class ExportCommandTest {
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 300}
            """;

    @TempDir
    Path temp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private Path state() {
        return temp.resolve("state/ledger").toAbsolutePath();
    }

    private Path bundle() {
        return temp.resolve("bundle").toAbsolutePath();
    }

    private int export(String... args) {
        CommandLine commandLine = LedgerMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private LedgerEngine serve() throws Exception {
        StateDirectory directory = new StateDirectory(state());
        directory.init(null);
        LoadedState loaded = directory.load(null);
        return LedgerEngine.start(loaded, new LedgerSettings(state(), null, HostPort.parse("127.0.0.1:0"),
                PolicyFiles.parse(POLICY), Duration.ofMinutes(30), 10_000, Duration.ofHours(1)),
                Clock.fixed(T0, ZoneOffset.UTC));
    }

    /** A session with three admitted calls: with the policy, five receipts. */
    private static void someReceipts(LedgerEngine ledger) {
        String token = Sha256.hexOfUtf8("export-client");
        String id = SessionIds.issue(token, RandomIds.sessionRandom());
        ledger.commands().sendAndWait(new InitializeSession(id, token, "alice", "pricing", "2025-06-18", null,
                new Edge("edge-a", "1"), T0));
        for (int c = 0; c < 3; c++) {
            ledger.commands().sendAndWait(new RequestCall(id, token, "req-" + c, "pricing", "quote", "invoke",
                    "ab".repeat(32), null, T0.plusSeconds(c + 1)));
        }
    }

    @Test
    void theBundleHoldsEveryEntryAndACheckpointOverAllOfThem() throws Exception {
        try (LedgerEngine ledger = serve()) {
            someReceipts(ledger);
        }

        int exit = export("export", "--state", state().toString(), "--out", bundle().toString());

        assertThat(exit).as("stderr: %s", err).isZero();
        assertThat(out.toString()).startsWith("Exported 5 entries to " + bundle());
        List<String> lines = Files.readAllLines(bundle().resolve("entries.jsonl"), StandardCharsets.UTF_8);
        assertThat(lines).hasSize(5);
        assertThat(Files.readString(bundle().resolve("entries.jsonl"))).endsWith("}\n");
        String vkey = Files.readString(bundle().resolve("vkey"));
        assertThat(vkey).endsWith("\n");
        Checkpoint checkpoint = Checkpoint.open(Files.readString(bundle().resolve("checkpoint")),
                VerifierKey.parse(vkey.strip()));
        CompactRange tree = CompactRange.empty();
        lines.forEach(line -> tree.append(Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8))));
        assertThat(checkpoint.size()).isEqualTo(5);
        assertThat(checkpoint.root()).isEqualTo(tree.root());
        assertThat(Files.readString(bundle().resolve("public-key.pem")))
                .isEqualTo(Files.readString(state().resolve("public-key.pem")));
    }

    @Test
    void exportIntegratesReceiptsTheLedgerHadNotIntegrated() throws Exception {
        try (LedgerEngine ledger = serve()) {
            someReceipts(ledger);
        }
        // As after a kill -9 between append and integration: the events are stored, the tree is not.
        TestIo.dropLogTables(state());

        int exit = export("export", "--state", state().toString(), "--out", bundle().toString());

        assertThat(exit).as("stderr: %s", err).isZero();
        assertThat(out.toString()).contains("(the export integrated the last 5, which the ledger had not yet)");
        assertThat(Files.readAllLines(bundle().resolve("entries.jsonl"))).hasSize(5);
    }

    @Test
    void aNonEmptyOutputDirectoryIsRefused() throws Exception {
        try (LedgerEngine ledger = serve()) {
            someReceipts(ledger);
        }
        Files.createDirectories(bundle());
        Files.writeString(bundle().resolve("keep.txt"), "mine");

        int exit = export("export", "--state", state().toString(), "--out", bundle().toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("ledger-app export: cannot write the bundle to " + bundle()
                + ": the directory is not empty; give a new or empty directory\n");
        try (var files = Files.list(bundle())) {
            assertThat(files).containsExactly(bundle().resolve("keep.txt"));
        }
    }

    @Test
    void aMissingStateIsRefused() {
        int exit = export("export", "--state", state().toString(), "--out", bundle().toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("ledger-app export: there is no ledger state at " + state());
        assertThat(bundle()).doesNotExist();
    }

    @Test
    void aStateNeverServedIsRefused() throws Exception {
        new StateDirectory(state()).init(null);

        int exit = export("export", "--state", state().toString(), "--out", bundle().toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("ledger-app export: the ledger at " + state() + " has no log yet"
                + " (ledger.mv.db is missing); run 'ledger-app serve' on it first\n");
        assertThat(state().resolve("ledger.mv.db")).doesNotExist();
    }

    @Test
    void outIsRequired() {
        int exit = export("export", "--state", state().toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--out=DIR'");
    }
}
