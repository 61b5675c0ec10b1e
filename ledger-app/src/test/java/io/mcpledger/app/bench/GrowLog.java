package io.mcpledger.app.bench;

import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.LedgerSchema;
import io.mcpledger.app.testing.LargeLog;
import io.mcpledger.domain.crypto.LogKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Grows a state for {@code rebuild} benchmarks (docs/benchmarks.md section 6): a new state directory whose log holds
 * {@code sessions} ended sessions of {@code perSession} receipts each, written through the store by {@link LargeLog}
 * (unsigned, interleaved a hundred sessions at a time) and integrated into the tree, with no projections stored.
 *
 * <pre>GrowLog DIR SESSIONS PER_SESSION [soak]</pre>
 *
 * With {@code soak}, a thousand sessions are interleaved at a time and calls are named as the load generator names
 * them ({@link LargeLog#soakShape}); a block of a thousand sessions is held in memory while it is written, so keep
 * PER_SESSION to a few hundred there.
 */
public final class GrowLog {
    private GrowLog() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4 || (args.length == 4 && !args[3].equals("soak"))) {
            System.err.println("usage: GrowLog DIR SESSIONS PER_SESSION [soak]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        int sessions = Integer.parseInt(args[1]);
        int perSession = Integer.parseInt(args[2]);
        if (Files.exists(dir)) {
            System.err.println(dir + " exists; GrowLog makes a new state");
            System.exit(2);
        }
        StateDirectory directory = new StateDirectory(dir);
        directory.init(null);
        LoadedState state = directory.load(null);
        LargeLog log = new LargeLog(state.origin(), LogKeys.keyId(state.origin(), state.signingKey().publicKey().raw()),
                Instant.parse("2026-12-01T00:00:00Z"));
        if (args.length == 4) {
            log.soakShape(1_000);
        }
        long started = System.nanoTime();
        long receipts;
        try (H2Database database = H2Database.open(dir)) {
            LedgerSchema.prepare(database.dataSource(), database.forcedWrites());
            receipts = log.append(database, 0, sessions, perSession, true);
            LogSequencer.open(database.dataSource(), new LedgerLog(database.dataSource()), database.forcedWrites(),
                    state.signingKey(), state.origin(), LedgerSettings.StoreCaches.DEFAULT_TILES).integrate();
        }
        System.out.printf("%s: %,d receipts in %,d sessions, %,d bytes, in %.1f s%n", dir, receipts, sessions,
                Files.size(dir.resolve(H2Database.FILE_NAME)), (System.nanoTime() - started) / 1e9);
    }
}
