package io.mcpledger.app.engine;

import static io.mcpledger.app.engine.RestartIsReplayTest.open;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.storage.H2Database;
import io.mcpledger.query.LedgerProjector;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * H2's page cache is what G1 copies at each young collection, so the ledger keeps a quarter of H2's own default
 * (benchmarks.md section 8): 4 MB unless {@code --store-cache-mb} says otherwise, and what it says is what H2 gets.
 */
class StorePageCacheTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-07T00:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    @Test
    void theDefaultIsFourMegabytes() throws Exception {
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), RestartIsReplayTest.settings(dir, null), CLOCK)) {
            assertThat(((H2Database) ledger.database()).pageCacheMegabytes()).isEqualTo(4);
        }
    }

    @Test
    void theSettingIsWhatH2Keeps() throws Exception {
        LedgerSettings defaults = RestartIsReplayTest.settings(dir, null);
        LedgerSettings sixteen = new LedgerSettings(dir, null, defaults.listen(), null, defaults.idleExpiry(),
                defaults.maxActiveSessions(), defaults.checkpointInterval(), LedgerProjector.Caches.DEFAULT,
                new LedgerSettings.StoreCaches(16, LedgerSettings.StoreCaches.DEFAULT_TILES));
        try (LedgerEngine ledger = LedgerEngine.start(open(dir), sixteen, CLOCK)) {
            assertThat(((H2Database) ledger.database()).pageCacheMegabytes()).isEqualTo(16);
        }
    }
}
