package io.mcpledger.verify;

import io.mcpledger.domain.log.Checkpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** What the commands that read a whole bundle share: its path, the key, --json, the workers, and the log check. */
abstract class BundleCommand {
    @Parameters(index = "0", paramLabel = "BUNDLE", description = "An export bundle directory (spec section 9).")
    Path bundle;

    @Mixin
    KeyOptions keys = new KeyOptions();

    @Option(names = "--json", description = "Print one JSON document for scripts instead of text.")
    boolean json;

    @Option(names = "--threads", paramLabel = "N",
            description = "Threads that check signatures (default: one per core, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Spec
    CommandSpec spec;

    /** The key verifyLog used. */
    TrustedKey trusted;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Verifies the bundle's log, feeding sink (which may be null) each good receipt in order. */
    LogCheck.Result verifyLog(LogCheck.Sink sink) {
        if (threads < 1) {
            throw new UsageException("--threads must be at least 1, not " + threads);
        }
        Bundles.require(bundle);
        TrustedKey key = keys.resolve(bundle, err());
        trusted = key;
        String checkpoint = Bundles.checkpoint(bundle);
        Path entries = bundle.resolve(Bundles.ENTRIES);
        try {
            Progress progress = new Progress(err(), Progress.wanted(json), Files.size(entries));
            return LogCheck.run(entries, checkpoint, key, sink, progress, threads);
        } catch (IOException e) {
            throw new UsageException("cannot read " + entries + ": " + e.getMessage(), e);
        }
    }

    /** Prints why the log is invalid; returns exit 1. */
    int invalid(LogCheck.Problem problem) {
        if (json) {
            Output.json(out(), Output.invalid(problem));
        } else {
            out().println("INVALID: " + problem.describe());
            out().flush();
        }
        return Exit.INVALID;
    }

    static String root(Checkpoint checkpoint) {
        return Base64.getEncoder().encodeToString(checkpoint.root());
    }
}
