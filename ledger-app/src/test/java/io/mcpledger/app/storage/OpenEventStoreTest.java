package io.mcpledger.app.storage;

import static io.mcpledger.app.storage.EventStoreFixture.engine;

import java.nio.file.Path;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Tests that each need a fresh H2 file with Axon's event storage engine on it, opened as the ledger opens them. */
abstract class OpenEventStoreTest {
    @TempDir
    Path state;
    H2Database db;
    JdbcEventStorageEngine engine;

    @BeforeEach
    void openEventStore() throws Exception {
        db = H2Database.open(state);
        engine = engine(new JdbcTransactionManager(db.dataSource(), db.forcedWrites()));
    }

    @AfterEach
    void closeEventStore() {
        db.close();
    }
}
