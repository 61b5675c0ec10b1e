package io.mcpledger.app.cli;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.statedir.InitReport;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ledger-app init}: creates the state directory, or completes it, without overwriting a key or credential. */
@Command(name = "init", mixinStandardHelpOptions = true,
        description = "Creates the ledger's state directory if missing: signing key, credentials and origin. "
                + "Never overwrites a key or credential.")
public final class InitCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--state", paramLabel = "DIR", defaultValue = "${LEDGER_STATE:-./state/ledger}",
            description = "State directory; default $LEDGER_STATE, else state/ledger in the working directory")
    private Path state;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        StateDirectory directory = new StateDirectory(state);
        InitReport report;
        try {
            report = directory.init(null);
        } catch (StateException e) {
            spec.commandLine().getErr().println("ledger-app init: " + e.getMessage());
            return LedgerMain.EXIT_USAGE;
        }
        if (report.directoryCreated()) {
            out.println("Created ledger state " + report.directory());
        } else if (!report.created().isEmpty()) {
            out.println("Completed ledger state " + report.directory());
        } else {
            out.println("Ledger state " + report.directory() + ": everything was already there.");
        }
        for (String file : report.created()) {
            out.println("  created " + file);
        }
        for (String mode : report.tightened()) {
            out.println("  chmod   " + mode);
        }
        out.println("Origin: " + report.origin());
        out.println("Credentials: " + directory.credentialsDirectory() + "/");
        return LedgerMain.EXIT_OK;
    }
}
