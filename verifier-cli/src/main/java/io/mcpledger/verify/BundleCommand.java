package io.mcpledger.verify;

import io.mcpledger.domain.log.Checkpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What the commands that read a whole bundle share: its path, the key, --json, the workers, and the log check. */
abstract class BundleCommand extends VerifyCommand {
    @Parameters(index = "0", paramLabel = "BUNDLE", description = "An export bundle directory (docs/contract.md, section 9).")
    Path bundle;

    /** More threads than this gain nothing on any machine this runs on, and would only cost memory. */
    static final int MAX_THREADS = 256;

    @Option(names = "--threads", paramLabel = "N",
            description = "Threads that check signatures, 1 to 256 (default: one per core, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();


    /** The key verifyLog used. */
    TrustedKey trusted;

    /** Verifies the bundle's log, feeding sink (which may be null) each good receipt in order. */
    LogCheck.Result verifyLog(LogCheck.Sink sink) {
        return verifyLog(sink, true);
    }

    /** As {@link #verifyLog(LogCheck.Sink)}; without signatures, the checkpoint's root alone authenticates lines. */
    LogCheck.Result verifyLog(LogCheck.Sink sink, boolean signatures) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new UsageException("--threads must be 1 to " + MAX_THREADS + ", not " + threads);
        }
        Bundles.require(bundle);
        try {
            trusted = keys.resolve(bundle, err());
        } catch (InvalidBundleException e) {
            return new LogCheck.Result(null, 0, 0, 0, e.problem());
        }
        Inputs.Content checkpoint = Bundles.checkpoint(bundle);
        if (checkpoint.problem() != null) {
            return new LogCheck.Result(null, 0, 0, 0, new LogCheck.Problem(Bundles.CHECKPOINT, 0, checkpoint.problem()));
        }
        Path entries = bundle.resolve(Bundles.ENTRIES);
        LogCheck.Result result = check(entries, checkpoint.text(), sink, signatures);
        if (!result.valid() && !signatures && result.checkpoint() != null) {
            // Without signatures a changed line shows only later (at the next line of its session, or at the root), so
            // the failure is checked again with them, to name the first bad line and why as 'log' does.
            LogCheck.Result full = check(entries, checkpoint.text(), null, true);
            LogCheck.Problem first = result.problem();
            LogCheck.Problem exact = full.problem();
            if (exact != null && (first.line() == 0 || (exact.line() > 0 && exact.line() <= first.line()))) {
                result = full;
            }
        }
        if (!result.valid()) {
            return result;
        }
        LogCheck.Problem keyFiles = Bundles.keyFiles(bundle, trusted, result.checkpoint().origin());
        return keyFiles == null ? result
                : new LogCheck.Result(result.checkpoint(), result.lines(), result.sessions(), result.clients(), keyFiles);
    }

    private LogCheck.Result check(Path entries, String checkpoint, LogCheck.Sink sink, boolean signatures) {
        try {
            Progress progress = new Progress(err(), Progress.wanted(json), Files.size(entries));
            return LogCheck.run(entries, checkpoint, trusted, sink, progress, threads, signatures);
        } catch (IOException e) {
            throw new UsageException("cannot read " + entries + ": " + e.getMessage(), e);
        }
    }

    static String root(Checkpoint checkpoint) {
        return Base64.getEncoder().encodeToString(checkpoint.root());
    }
}
