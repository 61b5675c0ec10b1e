package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.EnumSource;

/** The log's order is the event store's: a restart, or a rebuild of the tree tables, gives every entry its index. */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class LogRestartHttpTest {
    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    @TempDir
    Path state;
    HttpLedger ledger;

    @AfterEach
    void stop() {
        if (ledger != null) {
            ledger.close();
        }
    }

    private List<Long> indexesOf(List<String> receiptIds) throws Exception {
        List<Long> indexes = new ArrayList<>();
        for (String id : receiptIds) {
            indexes.add(ledger.auditor("GET", "/v1/receipts/" + id).send().assertStatus(200).json().path("index").asLong());
        }
        return indexes;
    }

    private List<String> someReceipts(String client) throws Exception {
        List<String> ids = new ArrayList<>();
        HttpLedger.Reply initialized = ledger.initialize(client, HttpLedger.initializeJson(client));
        ids.add(initialized.receipt().id());
        String session = initialized.session().path("id").asText();
        for (int i = 0; i < 5; i++) {
            ids.add(ledger.call(session, client, "r" + i, "quote").assertStatus(200).receipt().id());
        }
        return ids;
    }

    @Test
    void aStopIntegratesEverythingAndARestartKeepsEveryIndexAndTheRoot() throws Exception {
        ledger = HttpLedger.start(database, state, HttpLedger.PRICING_POLICY, 10_000, Duration.ofHours(1));
        List<String> ids = someReceipts("restarted");
        List<Long> before = indexesOf(ids);

        ledger.restart();

        Checkpoint after = ledger.checkpoint();
        assertThat(after.size()).isEqualTo(ids.size() + 1L);
        assertThat(indexesOf(ids)).isEqualTo(before);
        assertThat(entriesRoot()).isEqualTo(after.root());
    }

    private byte[] entriesRoot() throws Exception {
        CompactRange tree = CompactRange.empty();
        for (String line : ledger.entries(10_000)) {
            tree.append(Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8)));
        }
        return tree.root();
    }

    @Test
    void droppedTreeTablesAreRebuiltFromTheLogWithTheSameRoot() throws Exception {
        ledger = HttpLedger.start(database, state, HttpLedger.PRICING_POLICY, 10_000, Duration.ofHours(1));
        List<String> ids = someReceipts("rebuilt");
        ids.addAll(someReceipts("rebuilt-2"));
        ledger.integrate();
        Checkpoint original = ledger.checkpoint();
        List<Long> before = indexesOf(ids);

        ledger.restart(ledger::dropTreeTables);

        Checkpoint rebuilt = ledger.checkpoint();
        assertThat(rebuilt.size()).isEqualTo(original.size());
        assertThat(rebuilt.root()).isEqualTo(original.root());
        assertThat(indexesOf(ids)).isEqualTo(before);
        assertThat(entriesRoot()).isEqualTo(rebuilt.root());
    }
}
