package io.mcpledger.app.cli;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.demo.DemoFailure;
import io.mcpledger.app.demo.McpDeskStory;
import io.mcpledger.app.demo.PricingDeskStory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ledger-app demo}: the story of the contract's section 12 against a fresh temporary state, printed for a person and
 * checked step by step, so that a demo which prints is also a demo which passed.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Tells the pricing-desk story of the ledger contract's section 12 (docs/contract.md) against a fresh temporary ledger state: the"
                + " real service runs in this process on 127.0.0.1 and a free port, and an edge, an operator and an"
                + " auditor speak to it over HTTP with the state's credentials. A session is initialized, admitted,"
                + " restarted (ledger and edge), narrowed, revoked, left with an unknown outcome, deleted; then the"
                + " bundle is exported and checked with ledger-verify log, replay and investigate, and a copy with one"
                + " byte changed is rejected.",
            "Each step checks what the contract says must happen. Exit 0 when every step did, 1 at the first that did"
                + " not ('DEMO FAILED at step N: expected X, got Y'; a ledger that cannot start fails step 1), 2 for a"
                + " bad flag or when no temporary directory can be made."})
public final class DemoCommand implements Callable<Integer> {
    /** A step of the story did not behave as the contract says. */
    public static final int EXIT_FAILED = 1;
    /** Short, so the log is integrated promptly and the demo takes seconds. */
    static final Duration CHECKPOINT_INTERVAL = Duration.ofMillis(200);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--keep",
            description = "Keep the temporary state and bundles at the end, and print where they are.")
    private boolean keep;

    @Option(names = "--verbose",
            description = "Print session and capability ids and paths whole (by default ids are shortened to their"
                    + " first and last four hex digits, and the working directory is written $DEMO).")
    private boolean verbose;

    @Option(names = "--mcp",
            description = "Tell the story through the reference MCP edge (ledger-app edge) with a real MCP client: the"
                    + " official MCP Java SDK's Streamable HTTP client, in front of a stdio pricing server written with"
                    + " the same SDK.")
    private boolean mcp;

    private final Story story;

    /** Tells a story into an empty working directory; answers its summary or throws {@link DemoFailure}. */
    @FunctionalInterface
    interface Story {
        String tell(PrintWriter out, Path work, boolean verbose);
    }

    /** The pricing-desk story of the contract's section 12. */
    public DemoCommand() {
        this.story = null;
    }

    /** Another story, for tests of how the command reports a deviation. */
    DemoCommand(Story story) {
        this.story = story;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path work;
        try {
            work = Files.createTempDirectory("ledger-demo-");
        } catch (IOException | UnsupportedOperationException e) {
            err.println("ledger-app demo: cannot create a temporary directory for the demo's state: " + e.getMessage());
            return LedgerMain.EXIT_USAGE;
        }
        out.println("Working directory: " + work
                + (keep ? " (kept at the end)" : " (deleted at the end; --keep keeps it)"));
        int exit;
        try {
            String summary = story != null ? story.tell(out, work, verbose) : mcp
                    ? new McpDeskStory(out, work, CHECKPOINT_INTERVAL, verbose).tell()
                    : new PricingDeskStory(out, work, CHECKPOINT_INTERVAL, verbose).tell();
            out.println();
            out.println(summary);
            exit = LedgerMain.EXIT_OK;
        } catch (DemoFailure e) {
            out.flush();
            err.println(e.getMessage());
            if (!keep) {
                err.println("Run 'ledger-app demo --keep' to keep the state and bundles for a look.");
            }
            exit = EXIT_FAILED;
        }
        if (keep) {
            out.println("Kept the state and bundles in " + work);
        } else {
            deleteQuietly(work, err);
        }
        out.flush();
        err.flush();
        return exit;
    }

    /** Deletes the demo's directory; a leftover is reported, not fatal: the story has been told. */
    private static void deleteQuietly(Path work, PrintWriter err) {
        try (Stream<Path> walk = Files.walk(work)) {
            List<Path> paths = walk.sorted(Comparator.reverseOrder()).toList();
            for (Path path : paths) {
                Files.delete(path);
            }
        } catch (IOException e) {
            err.println("ledger-app demo: could not delete " + work + " (" + e.getMessage() + "); delete it by hand");
        }
    }
}
