package io.mcpledger.app.storage;

import static io.mcpledger.app.storage.EventStoreFixture.event;
import static io.mcpledger.app.storage.EventStoreFixture.payloads;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.storage.EventStoreFixture.Noted;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.junit.jupiter.api.Test;

class H2EventTableFactoryTest extends OpenEventStoreTest {
    @Test
    void creatingTheSchemaAgainKeepsTheStoredEvents() {
        engine.appendEvents(event("a-1", 0, "kept"));

        engine.createSchema(H2EventTableFactory.INSTANCE);

        assertThat(payloads(engine, "a-1")).containsExactly(new Noted("kept"));
    }

    @Test
    void payloadAndMetaDataAreVarbinaryOfOneBillionBytes() throws Exception {
        List<String> columns = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH "
                     + "FROM INFORMATION_SCHEMA.COLUMNS WHERE COLUMN_NAME IN ('PAYLOAD', 'METADATA') "
                     + "ORDER BY TABLE_NAME, COLUMN_NAME")) {
            while (rs.next()) {
                columns.add(rs.getString(1) + "." + rs.getString(2) + " " + rs.getString(3) + " " + rs.getLong(4));
            }
        }
        assertThat(columns).containsExactly(
                "DOMAINEVENTENTRY.METADATA BINARY VARYING 1000000000",
                "DOMAINEVENTENTRY.PAYLOAD BINARY VARYING 1000000000",
                "SNAPSHOTEVENTENTRY.METADATA BINARY VARYING 1000000000",
                "SNAPSHOTEVENTENTRY.PAYLOAD BINARY VARYING 1000000000");
    }

    @Test
    void theEventTableKeepsOnlyTheKeyAndTheStreamPositionUnique() throws Exception {
        List<String> constraints = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tc.CONSTRAINT_TYPE, LISTAGG(k.COLUMN_NAME, ',') WITHIN GROUP "
                     + "(ORDER BY k.ORDINAL_POSITION) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc "
                     + "JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k ON k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME "
                     + "WHERE tc.TABLE_NAME = 'DOMAINEVENTENTRY' GROUP BY tc.CONSTRAINT_NAME, tc.CONSTRAINT_TYPE "
                     + "ORDER BY 1, 2")) {
            while (rs.next()) {
                constraints.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        assertThat(constraints).containsExactly(
                "PRIMARY KEY GLOBALINDEX",
                "UNIQUE AGGREGATEIDENTIFIER,SEQUENCENUMBER");
    }

    @Test
    void theFirstEventHasGlobalIndexOne() {
        engine.appendEvents(event("a-1", 0, "first"));

        List<? extends TrackedEventMessage<?>> tracked = engine.readEvents(null, false).toList();

        assertThat(tracked).hasSize(1);
        assertThat(tracked.get(0).trackingToken().position()).hasValue(1L);
    }

    @Test
    void aTwoMegabytePayloadRoundTrips() {
        String big = "x".repeat(2 * 1024 * 1024);

        engine.appendEvents(event("a-1", 0, big));

        assertThat(payloads(engine, "a-1")).containsExactly(new Noted(big));
    }

    @Test
    void trackingFromAPositionSkipsEarlierEvents() {
        engine.appendEvents(event("a-1", 0, "first"), event("a-2", 0, "second"));

        List<Object> after = engine.readEvents(GapAwareTrackingToken.newInstance(1, Set.of()), false)
                .map(TrackedEventMessage::getPayload).map(Object.class::cast).toList();

        assertThat(after).containsExactly(new Noted("second"));
    }
}
