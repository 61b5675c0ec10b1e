package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.QUOTE_AND_DISCOUNT;
import static io.mcpledger.domain.session.TestLedger.context;

import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;

/** A session aggregate fixture with the quote-and-discount policy active; tests change {@link #authority}. */
abstract class SessionFixture {
    protected FixtureConfiguration<SessionAggregate> fixture;
    protected TestLedger.SettableAuthority authority;

    @BeforeEach
    void setUpFixture() {
        authority = new TestLedger.SettableAuthority();
        authority.policy = QUOTE_AND_DISCOUNT;
        fixture = new AggregateTestFixture<>(SessionAggregate.class);
        fixture.registerInjectableResource(context(authority));
    }
}
