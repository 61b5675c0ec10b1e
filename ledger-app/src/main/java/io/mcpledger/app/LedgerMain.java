package io.mcpledger.app;

import io.mcpledger.app.cli.DemoCommand;
import io.mcpledger.app.cli.EdgeCommand;
import io.mcpledger.app.cli.ExportCommand;
import io.mcpledger.app.cli.InitCommand;
import io.mcpledger.app.cli.RebuildCommand;
import io.mcpledger.app.cli.ServeCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ledger-app}: the ledger's command line; the exit status of each sub-command is part of its contract. */
@Command(name = "ledger-app", mixinStandardHelpOptions = true, version = "ledger-app 0.1.0",
        description = "The MCP receipts ledger.",
        subcommands = {
            InitCommand.class,
            ServeCommand.class,
            ExportCommand.class,
            RebuildCommand.class,
            DemoCommand.class,
            EdgeCommand.class,
        })
public final class LedgerMain implements Callable<Integer> {
    public static final int EXIT_OK = 0;
    /** Bad flags, an invalid policy, or a state or I/O problem the person running the command must fix. */
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line as {@link #main} runs it: bad flags give one line naming the problem (contract section 2) instead
     * of picocli's line followed by the whole usage text. The exit status is 2 either way.
     */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new LedgerMain());
        commandLine.setParameterExceptionHandler(LedgerMain::oneLineUsageError);
        return commandLine;
    }

    private static int oneLineUsageError(CommandLine.ParameterException e, String[] args) {
        CommandLine failed = e.getCommandLine();
        String command = failed.getCommandSpec().qualifiedName();
        String problem = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
        failed.getErr().println(command + ": " + problem + " (see '" + command + " --help')");
        return failed.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Without a sub-command there is nothing to do: say which exist. */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("ledger-app: a sub-command is required (see 'ledger-app --help')");
        return EXIT_USAGE;
    }
}
