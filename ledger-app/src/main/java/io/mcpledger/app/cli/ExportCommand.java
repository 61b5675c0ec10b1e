package io.mcpledger.app.cli;

import io.mcpledger.app.FileErrors;
import io.mcpledger.app.LedgerMain;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.log.Bundle;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.LedgerDatabase;
import io.mcpledger.app.storage.PostgresDatabase;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.LedgerSchema;
import io.mcpledger.app.storage.StateInUseException;
import io.mcpledger.app.storage.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ledger-app export}: the bundle of contract section 9 from a stopped ledger's state, or from a PostgreSQL database
 * while its nodes run. Everything committed is integrated first, so the bundle's checkpoint covers every line.
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Writes an export bundle (entries.jsonl, checkpoint, public-key.pem, vkey) from a stopped "
                + "ledger's state, integrating every receipt first.")
public final class ExportCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--state", paramLabel = "DIR", defaultValue = "${LEDGER_STATE:-./state/ledger}",
            description = "State directory; default $LEDGER_STATE, else state/ledger in the working directory")
    private Path state;

    @Option(names = "--out", paramLabel = "DIR", required = true,
            description = "Directory to write the bundle to; created if missing, and must be empty if it exists")
    private Path out;

    @CommandLine.Mixin
    private DatabaseOption database = new DatabaseOption();

    @Override
    public Integer call() {
        try {
            DatabaseUrl url = database.url();
            requireEmptyOutput();
            LoadedState loaded = new StateDirectory(state).load(null);
            if (url == null && !Files.exists(state.resolve(H2Database.FILE_NAME))) {
                return fail("the ledger at " + state + " has no log yet (" + H2Database.FILE_NAME + " is missing);"
                        + " run 'ledger-app serve' on it first");
            }
            long entries;
            long integrated;
            // On PostgreSQL the nodes may be running: the export integrates beside them, and its bundle is the log up
            // to the checkpoint it finds then.
            try (LedgerDatabase db = url == null ? H2Database.open(state, 2)
                    : PostgresDatabase.open(url, 2, PostgresDatabase.Slots.NONE)) {
                LedgerSchema.prepareLog(db, loaded.origin(), loaded.publicKeyText());
                LogSequencer log = LogSequencer.open(db.dataSource(), new LedgerLog(db.dataSource()),
                        db.forcedWrites(), loaded.signingKey(), loaded.origin(),
                        LedgerSettings.StoreCaches.DEFAULT_TILES, db.shared());
                integrated = log.integrate();
                entries = writeThenMove(log, loaded);
            }
            spec.commandLine().getOut().println("Exported " + entries + " entries to " + out + "; the checkpoint covers"
                    + " every line" + (integrated == 0 ? "." : " (the export integrated the last " + integrated
                    + ", which the ledger had not yet)."));
            return LedgerMain.EXIT_OK;
        } catch (StateInUseException e) {
            return fail("the ledger still holds the state at " + state + "; stop it (SIGTERM) and export again");
        } catch (StateException | StorageException | IllegalArgumentException e) {
            return fail(e.getMessage());
        } catch (IOException e) {
            return fail("cannot write the bundle to " + out + ": " + FileErrors.describe(e));
        } catch (RuntimeException e) {
            return fail("the bundle could not be made, nothing was written to " + out + ": " + e.getMessage());
        }
    }

    /**
     * Writes the bundle into a new directory beside {@code --out} and moves it into place once it is complete, so a
     * failure never leaves half a bundle behind.
     */
    private long writeThenMove(LogSequencer log, LoadedState loaded) throws IOException, StorageException {
        Path target = out.toAbsolutePath().normalize();
        Files.createDirectories(target.getParent());
        Path staging = Files.createTempDirectory(target.getParent(), "." + target.getFileName() + ".partial-");
        try {
            long entries = Bundle.write(log, loaded.signingKey().publicKey(), loaded.origin(), staging);
            Files.deleteIfExists(target);
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            return entries;
        } finally {
            if (Files.exists(staging)) {
                try (Stream<Path> files = Files.list(staging)) {
                    for (Path file : (Iterable<Path>) files::iterator) {
                        Files.delete(file);
                    }
                }
                Files.delete(staging);
            }
        }
    }

    private void requireEmptyOutput() throws IOException {
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new IOException("it exists and is not a directory; give a new or empty directory");
        }
        if (Files.isDirectory(out)) {
            try (Stream<Path> files = Files.list(out)) {
                if (files.findAny().isPresent()) {
                    throw new IOException("the directory is not empty; give a new or empty directory");
                }
            }
        }
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("ledger-app export: " + message);
        return LedgerMain.EXIT_USAGE;
    }
}
