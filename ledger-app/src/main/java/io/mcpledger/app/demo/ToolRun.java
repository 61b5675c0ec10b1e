package io.mcpledger.app.demo;

import io.mcpledger.app.cli.ExportCommand;
import io.mcpledger.verify.LedgerVerify;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** A command line run in process, as a person would type it, with what it printed and its exit status. */
record ToolRun(String command, int exit, String out, String err) {
    /** {@code ledger-verify ARGS} through the verifier's own command line: its parsing, its checks, its exit codes. */
    static ToolRun ledgerVerify(String... args) {
        return run("ledger-verify", LedgerVerify.commandLine(), args);
    }

    /** {@code ledger-app export ARGS}: the export sub-command itself, so the bundle is exactly what it writes. */
    static ToolRun ledgerAppExport(String... args) {
        return run("ledger-app export", new CommandLine(new ExportCommand()), args);
    }

    private static ToolRun run(String name, CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new ToolRun(name + " " + String.join(" ", args), exit, out.toString(), err.toString());
    }
}
