package io.mcpledger.verify;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ledger-verify}: the offline verifier of contract section 10. It needs the bundle (or the files) and a key:
 * no database, no network, no Axon or Micronaut.
 */
@Command(name = "ledger-verify", mixinStandardHelpOptions = true, version = "ledger-verify 0.1.0",
        description = "Verifies MCP receipts ledger logs, receipts and checkpoints offline, and replays and"
                + " investigates history. Exit 0 valid, 1 invalid, 2 usage or I/O error; investigate also 3 (outcome"
                + " unknown or pending) and 4 (not found).",
        subcommands = {
            LogCommand.class,
            ReceiptCommand.class,
            ConsistencyCommand.class,
            ReplayCommand.class,
            InvestigateCommand.class,
        })
public final class LedgerVerify implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int exit;
        try {
            exit = commandLine().execute(args);
        } catch (Throwable e) { // an Error (out of memory, say) escapes picocli: still no verdict, so exit 2, not 1
            System.err.println("ledger-verify: internal error, nothing was decided: " + e);
            exit = Exit.USAGE;
        }
        System.exit(exit);
    }

    /**
     * The command line as {@link #main} runs it. Bad flags and I/O problems give one line and exit 2; an unexpected
     * failure also exits 2, never 1, so that no script reads a crash as "invalid".
     */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new LedgerVerify());
        commandLine.setParameterExceptionHandler(LedgerVerify::usageError);
        commandLine.setExecutionExceptionHandler(LedgerVerify::executionError);
        return commandLine;
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine failed = e.getCommandLine();
        String command = failed.getCommandSpec().qualifiedName();
        String problem = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
        failed.getErr().println(command + ": " + problem + " (see '" + command + " --help')");
        failed.getErr().flush();
        return Exit.USAGE;
    }

    private static int executionError(Exception e, CommandLine failed, CommandLine.ParseResult parsed) {
        String command = failed.getCommandSpec().qualifiedName();
        if (e instanceof UsageException) {
            failed.getErr().println(command + ": " + e.getMessage());
        } else {
            failed.getErr().println(command + ": internal error, nothing was decided: " + e);
        }
        failed.getErr().flush();
        return Exit.USAGE;
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("ledger-verify: a sub-command is required: log, receipt, consistency,"
                + " replay or investigate (see 'ledger-verify --help')");
        return Exit.USAGE;
    }
}
