package io.mcpledger.verify;

import picocli.CommandLine.Option;

/** The commands that rebuild state from a bundle ({@code replay}, {@code investigate}), which may lean on the root. */
abstract class RebuildCommand extends BundleCommand {
    @Option(names = "--by-root", description = "Authenticate the lines by the signed checkpoint's Merkle root, which"
            + " binds every byte of every line, without checking each receipt's own signature: several times faster on"
            + " a long log. Everything else 'log' checks is checked; run 'log' once for the receipts' signatures.")
    boolean byRoot;

    /** Verifies the log as 'log' does (by the root alone with --by-root), feeding sink each good receipt in order. */
    LogCheck.Result verifyAndFold(LogCheck.Sink sink) {
        return verifyLog(sink, !byRoot);
    }
}
