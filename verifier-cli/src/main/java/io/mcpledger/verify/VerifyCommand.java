package io.mcpledger.verify;

import java.io.PrintWriter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** What every command takes: the key (contract section 10), --json, and where it writes. */
abstract class VerifyCommand {
    @Mixin
    KeyOptions keys = new KeyOptions();

    @Option(names = "--json", description = "Print one JSON document for scripts instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Prints why what was verified is invalid (one line, or the JSON of {@link Output#invalid}); returns exit 1. */
    int invalid(LogCheck.Problem problem) {
        if (json) {
            Output.json(out(), Output.invalid(problem));
        } else {
            out().println("INVALID: " + problem.describe());
            out().flush();
        }
        return Exit.INVALID;
    }
}
