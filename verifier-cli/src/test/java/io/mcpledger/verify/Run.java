package io.mcpledger.verify;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One in-process run of ledger-verify, as main runs it: exit status, stdout and stderr. */
record Run(int exit, String out, String err) {
    static Run of(Object... args) {
        String[] strings = new String[args.length];
        for (int i = 0; i < args.length; i++) {
            strings[i] = String.valueOf(args[i]);
        }
        CommandLine commandLine = LedgerVerify.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(strings);
        return new Run(exit, out.toString(), err.toString());
    }
}
