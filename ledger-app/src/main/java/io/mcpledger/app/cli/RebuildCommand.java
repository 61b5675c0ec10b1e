package io.mcpledger.app.cli;

import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.LedgerDatabase;
import io.mcpledger.app.storage.PostgresDatabase;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.LedgerSchema;
import io.mcpledger.app.storage.SqlProjectionStore;
import io.mcpledger.app.storage.StateInUseException;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.query.DigestView;
import io.mcpledger.query.LedgerProjector;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ledger-app rebuild} (contract section 13): drops every projection of a stopped ledger and folds the whole log
 * again with the fold the live ledger and the verifier use, then prints the projection digest. The log is only read:
 * the receipts and the transparency log stay as they are. Like a start, it trusts the store's bytes and checks each
 * session's chain; signatures are the verifier's to check.
 */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
        description = "Drops every projection of a stopped ledger and folds the whole log again, then prints the "
                + "projection digest (which equals the one the ledger reported). Never changes the log.")
public final class RebuildCommand implements Callable<Integer> {
    /** The fold writes no expiry anywhere; the projector needs one for the views it never serves here. */
    private static final Duration UNUSED_IDLE_EXPIRY = Duration.ofMinutes(30);

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--state", paramLabel = "DIR", defaultValue = "${LEDGER_STATE:-./state/ledger}",
            description = "State directory; default $LEDGER_STATE, else state/ledger in the working directory")
    private Path state;

    @CommandLine.Mixin
    private DatabaseOption database = new DatabaseOption();

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            DatabaseUrl url = database.url();
            LoadedState loaded = new StateDirectory(state).load(null);
            if (url == null && !Files.exists(state.resolve(H2Database.FILE_NAME))) {
                return fail("the ledger at " + state + " has no log yet (" + H2Database.FILE_NAME + " is missing)");
            }
            // The log's reader, the fold's reads of the projections and the flush each hold a connection at once.
            // On PostgreSQL only with every node stopped: it takes every projection slot.
            try (LedgerDatabase db = url == null ? H2Database.open(state, 4)
                    : PostgresDatabase.open(url, 4, PostgresDatabase.Slots.ALL)) {
                LedgerSchema.prepare(db, loaded.origin(), loaded.publicKeyText());
                LedgerLog log = new LedgerLog(db.dataSource());
                SqlProjectionStore store = new SqlProjectionStore(db.projections(), db.forcedWrites());
                store.clear();
                LedgerProjector projector = LedgerProjector.open(store, log, UNUSED_IDLE_EXPIRY,
                        LedgerProjector.Caches.DEFAULT);
                long total = log.size();
                Progress progress = new Progress(spec.commandLine().getErr(), total);
                long started = System.nanoTime();
                long folded = projector.catchUp(progress::folded);
                double seconds = (System.nanoTime() - started) / 1e9;
                progress.done();
                DigestView digest = projector.digest();
                out.printf("Rebuilt the projections from %d log entries in %.1f s (%,d receipts/s).%n", folded, seconds,
                        Math.round(folded / Math.max(seconds, 1e-9)));
                out.println("Projection digest at tree size " + digest.treeSize() + ": " + digest.digest());
                out.flush();
                return LedgerMain.EXIT_OK;
            }
        } catch (StateInUseException e) {
            return fail("the ledger still holds the state at " + state + "; stop it (SIGTERM) and rebuild again");
        } catch (StateException | StorageException | IllegalArgumentException e) {
            return fail(e.getMessage());
        } catch (RuntimeException e) {
            return fail("the projections could not be rebuilt (the log is unchanged; rebuild again once the cause is"
                    + " fixed): " + e.getMessage());
        }
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("ledger-app rebuild: " + message);
        return LedgerMain.EXIT_USAGE;
    }

    /** A progress line on a terminal, rewritten at most twice a second; nothing when the output is not one. */
    private static final class Progress {
        private final PrintWriter err;
        private final long total;
        private final boolean terminal = System.console() != null;
        private final long started = System.nanoTime();
        private long shownAt;

        Progress(PrintWriter err, long total) {
            this.err = err;
            this.total = total;
        }

        void folded(long n) {
            if (!terminal || (n & 1023) != 0) {
                return;
            }
            long now = System.nanoTime();
            if (now - shownAt < 500_000_000L) {
                return;
            }
            shownAt = now;
            double seconds = (now - started) / 1e9;
            err.printf("\rfolded %,d of %,d log entries (%d%%, %,d/s)", n, total, total == 0 ? 100 : n * 100 / total,
                    Math.round(n / Math.max(seconds, 1e-9)));
            err.flush();
        }

        void done() {
            if (terminal && shownAt != 0) {
                err.print("\r\033[K");
                err.flush();
            }
        }
    }
}
