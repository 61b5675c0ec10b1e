package io.mcpledger.verify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code ledger-verify log BUNDLE}: is the exported log whole, in order, signed and the one the checkpoint names. */
@Command(name = "log", mixinStandardHelpOptions = true,
        description = {"Verifies an export bundle: every line is a canonical receipt whose keyId and signature verify,"
                + " every receipt id appears once, every session's seq runs 1, 2, 3... with prev linking, the Merkle"
                + " root of the lines equals the checkpoint's, and the checkpoint's signature verifies.",
            "Exit 0 valid, 1 invalid (naming the first bad line and why), 2 usage or I/O error."})
final class LogCommand extends BundleCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        LogCheck.Result result = verifyLog(null);
        if (!result.valid()) {
            return invalid(result.problem());
        }
        String origin = result.checkpoint().origin();
        if (json) {
            ObjectNode node = Output.object();
            node.put("valid", true);
            node.put("origin", origin);
            node.put("treeSize", result.checkpoint().size());
            node.put("root", root(result.checkpoint()));
            node.put("sessions", result.sessions());
            if (result.clients() > 0) {
                node.put("clients", result.clients());
            }
            node.put("key", trusted.source());
            Output.json(out(), node);
        } else {
            PrintWriter out = out();
            out.printf(Locale.ROOT, "VALID: %,d entries of the log %s%n", result.lines(), origin);
            out.printf(Locale.ROOT, "  checkpoint  size %d, root %s, signature verified%n", result.checkpoint().size(),
                    root(result.checkpoint()));
            out.printf(Locale.ROOT, "  lines       each canonical, signed (keyId %s) and used once%n", trusted.keyId(origin));
            out.printf(Locale.ROOT, "  sessions    %,d, each chain linked from seq 1%n", result.sessions());
            if (result.clients() > 0) {
                out.printf(Locale.ROOT, "  clients     %,d, streams of calls without a session, each chain linked from seq"
                        + " 1%n", result.clients());
            }
            out.printf(Locale.ROOT, "  key         %s%n", trusted.source());
            out.printf(Locale.ROOT, "  tree        the Merkle root of the %,d lines is the checkpoint's%n", result.lines());
            out.flush();
        }
        return Exit.OK;
    }
}
