package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class InitCommandTest {
    @TempDir
    Path temp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(CommandLine commandLine, String... args) {
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private int run(String... args) {
        return run(LedgerMain.commandLine(), args);
    }

    private Path dir() {
        return temp.resolve("state/ledger").toAbsolutePath();
    }

    private String origin() throws Exception {
        return Files.readString(dir().resolve("origin")).strip();
    }

    @Test
    void initCreatesTheStateAndListsWhatItCreated() throws Exception {
        int exit = run("init", "--state", dir().toString());

        assertThat(exit).isEqualTo(0);
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()).isEqualTo(String.join("\n",
                "Created ledger state " + dir(),
                "  created signing-key.pem",
                "  created public-key.pem",
                "  created credentials/edge.token",
                "  created credentials/operator.token",
                "  created credentials/auditor.token",
                "  created credential-hashes.json",
                "  created origin",
                "Origin: " + origin(),
                "Credentials: " + dir() + "/credentials/",
                ""));
    }

    @Test
    void initAgainSaysEverythingWasAlreadyThere() throws Exception {
        run("init", "--state", dir().toString());
        out.getBuffer().setLength(0);

        int exit = run("init", "--state", dir().toString());

        assertThat(exit).isEqualTo(0);
        assertThat(err.toString()).isEmpty();
        assertThat(out.toString()).isEqualTo(String.join("\n",
                "Ledger state " + dir() + ": everything was already there.",
                "Origin: " + origin(),
                "Credentials: " + dir() + "/credentials/",
                ""));
    }

    @Test
    void initAfterATokenFileWasDeletedLeavesItDeleted() throws Exception {
        run("init", "--state", dir().toString());
        Path edge = new StateDirectory(dir()).tokenFile(Role.EDGE);
        Files.delete(edge);
        out.getBuffer().setLength(0);

        int exit = run("init", "--state", dir().toString());

        assertThat(exit).isEqualTo(0);
        assertThat(out.toString()).startsWith("Ledger state " + dir() + ": everything was already there.\n");
        assertThat(edge).doesNotExist();
    }

    @Test
    void initCompletesAStateAndSaysWhatItAdded() throws Exception {
        run("init", "--state", dir().toString());
        Files.delete(dir().resolve("public-key.pem"));
        out.getBuffer().setLength(0);

        int exit = run("init", "--state", dir().toString());

        assertThat(exit).isEqualTo(0);
        assertThat(out.toString()).isEqualTo(String.join("\n",
                "Completed ledger state " + dir(),
                "  created public-key.pem",
                "Origin: " + origin(),
                "Credentials: " + dir() + "/credentials/",
                ""));
    }

    @Test
    void theStateDirectoryDefaultsToLedgerState() throws Exception {
        // picocli resolves ${LEDGER_STATE} from a system property before the environment, which lets a test set it.
        System.setProperty("LEDGER_STATE", dir().toString());
        try {
            int exit = run("init");

            assertThat(exit).isEqualTo(0);
            assertThat(dir().resolve("signing-key.pem")).isRegularFile();
        } finally {
            System.clearProperty("LEDGER_STATE");
        }
    }

    @Test
    void aFileInPlaceOfTheStateIsOneLineOnStderrAndExitTwo() throws Exception {
        Files.createDirectories(dir().getParent());
        Files.writeString(dir(), "oops");

        int exit = run("init", "--state", dir().toString());

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo("ledger-app init: " + dir() + " is a file, but should be a directory; "
                + "move it away or pass a different --state\n");
    }

    @Test
    void anUnknownOptionIsOneLineOnStderrAndExitTwo() {
        int exit = run("init", "--bogus");

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo("ledger-app init: Unknown option: '--bogus' (see 'ledger-app init --help')\n");
    }

    @Test
    void aMissingOptionValueIsOneLineOnStderrAndExitTwo() {
        int exit = run("init", "--state");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("ledger-app init: Missing required parameter for option '--state' (DIR) "
                + "(see 'ledger-app init --help')\n");
    }

    @Test
    void anUnknownSubcommandIsOneLineOnStderrAndExitTwo() {
        int exit = run("bogus");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("ledger-app: Unmatched argument at index 0: 'bogus' "
                + "(see 'ledger-app --help')\n");
    }

    @Test
    void noSubcommandIsExitTwo() {
        int exit = run();

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo("ledger-app: a sub-command is required (see 'ledger-app --help')\n");
    }

    @Test
    void aPlainCommandLineAlsoExitsTwoOnBadUsage() {
        int exit = run(new CommandLine(new LedgerMain()), "init", "--bogus");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("Unknown option: '--bogus'\n");
    }

    @Test
    void helpListsInitAndExitsZero() {
        int exit = run("--help");

        assertThat(exit).isEqualTo(0);
        assertThat(out.toString()).startsWith("Usage: ledger-app [-hV] [COMMAND]\n");
        assertThat(out.toString()).containsPattern("\n  init +Creates the ledger's state directory if missing");
    }

    @Test
    void initHelpNamesTheStateOptionAndExitsZero() {
        int exit = run("init", "--help");

        assertThat(exit).isEqualTo(0);
        assertThat(out.toString()).startsWith("Usage: ledger-app init [-hV] [--state=DIR]\n");
        assertThat(out.toString()).contains("--state=DIR");
        assertThat(out.toString()).contains("--state=DIR   State directory; default $LEDGER_STATE, else state/ledger\n"
                + "                      in the working directory\n");
    }

    @Test
    void versionExitsZero() {
        int exit = run("--version");

        assertThat(exit).isEqualTo(0);
        assertThat(out.toString()).isEqualTo("ledger-app 0.1.0\n");
    }
}
