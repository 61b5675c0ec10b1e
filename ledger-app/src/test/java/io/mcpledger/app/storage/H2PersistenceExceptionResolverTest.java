package io.mcpledger.app.storage;

import static io.mcpledger.app.storage.EventStoreFixture.event;
import static io.mcpledger.app.storage.EventStoreFixture.payloads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.storage.EventStoreFixture.Noted;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.axonframework.modelling.command.AggregateStreamCreationException;
import org.axonframework.modelling.command.ConcurrencyException;
import org.junit.jupiter.api.Test;

class H2PersistenceExceptionResolverTest extends OpenEventStoreTest {
    @Test
    void aSecondEventAtTheSameSequenceIsAConcurrencyException() {
        engine.appendEvents(event("a-1", 0, "first"), event("a-1", 1, "second"));

        assertThatThrownBy(() -> engine.appendEvents(event("a-1", 1, "rival")))
                .isExactlyInstanceOf(ConcurrencyException.class)
                .hasMessageStartingWith("An event for aggregate [a-1] at sequence [1] was already inserted.");
        assertThat(payloads(engine, "a-1")).containsExactly(new Noted("first"), new Noted("second"));
    }

    @Test
    void reusingAnAggregateIdentifierIsAnAggregateStreamCreationException() {
        engine.appendEvents(event("a-1", 0, "first"));

        assertThatThrownBy(() -> engine.appendEvents(event("a-1", 0, "rival")))
                .isExactlyInstanceOf(AggregateStreamCreationException.class);
    }

    @Test
    void aBatchFailureIsADuplicateWhenItsSqlStateIsUniqueViolation() {
        BatchUpdateException batch = new BatchUpdateException("duplicate", "23505", 23505, new int[0]);

        assertThat(H2PersistenceExceptionResolver.INSTANCE.isDuplicateKeyViolation(batch)).isTrue();
    }

    @Test
    void aUniqueViolationChainedAsNextExceptionIsADuplicate() {
        SQLException outer = new SQLException("batch failed", "HY000");
        outer.setNextException(new SQLException("duplicate", "23505"));

        assertThat(H2PersistenceExceptionResolver.INSTANCE.isDuplicateKeyViolation(new IllegalStateException(outer)))
                .isTrue();
    }

    @Test
    void aNotNullViolationIsNotADuplicate() {
        assertThat(H2PersistenceExceptionResolver.INSTANCE.isDuplicateKeyViolation(
                new SQLException("NULL not allowed", "23502", 23502))).isFalse();
    }

    @Test
    void anExceptionWithoutSqlStateIsNotADuplicate() {
        assertThat(H2PersistenceExceptionResolver.INSTANCE.isDuplicateKeyViolation(
                new IllegalStateException("disk full"))).isFalse();
    }
}
