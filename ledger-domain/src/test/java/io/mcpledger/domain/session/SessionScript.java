package io.mcpledger.domain.session;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.axonframework.test.aggregate.TestExecutor;

/**
 * Drives {@link TestLedger#SESSION} through the real aggregate one command at a time and hands back its
 * signed receipts, for tests outside this package that read logs rather than check commands.
 */
public final class SessionScript {
    public static final String SESSION = TestLedger.SESSION;
    public static final String ARGS = TestLedger.ARGS;
    public static final String ARGS2 = TestLedger.ARGS2;
    public static final Edge EDGE_1 = TestLedger.EDGE_1;
    public static final Edge EDGE_2 = TestLedger.EDGE_2;
    public static final PolicyDocument QUOTE_AND_DISCOUNT = TestLedger.QUOTE_AND_DISCOUNT;
    public static final PolicyDocument ANY_PRICING_TOOL = TestLedger.ANY_PRICING_TOOL;
    public static final PolicyDocument DISCOUNT_ONLY = TestLedger.DISCOUNT_ONLY;

    private final FixtureConfiguration<SessionAggregate> fixture = new AggregateTestFixture<>(SessionAggregate.class);
    private final TestLedger.SettableAuthority authority = new TestLedger.SettableAuthority();
    private final TestExecutor<SessionAggregate> executor;

    private SessionScript() {
        authority.policy = QUOTE_AND_DISCOUNT;
        fixture.registerInjectableResource(TestLedger.context(authority));
        executor = fixture.givenCommands(TestLedger.initialize());
    }

    /** The session initialized at T0 by {@link #EDGE_1} under {@link #QUOTE_AND_DISCOUNT}. */
    public static SessionScript initialized() {
        return new SessionScript();
    }

    /** The minute after T0, as receipts spell it. */
    public static Instant at(int minute) {
        return TestLedger.at(Duration.ofMinutes(minute));
    }

    /** Sets the policy later commands see. */
    public SessionScript activate(PolicyDocument policy) {
        authority.policy = policy;
        return this;
    }

    public SessionScript call(String requestId, String tool, String argumentsSha256, int minute) {
        return run(new RequestCall(SESSION, TestLedger.TOKEN, requestId, "pricing", tool, "invoke", argumentsSha256,
                null, at(minute)));
    }

    public SessionScript outcome(String requestId, String status, int minute) {
        return run(TestLedger.outcome(requestId, status, Duration.ofMinutes(minute)));
    }

    public SessionScript resume(Edge edge, int minute) {
        return run(TestLedger.resume(Duration.ofMinutes(minute), edge));
    }

    public SessionScript resolve(String requestId, String status, String note, int minute) {
        return run(new ResolveCall(SESSION, requestId, status, note, at(minute)));
    }

    /** Every receipt of the session so far, in seq order. */
    public List<Receipt> receipts() {
        return fixture.getEventStore().readEvents(SESSION).asStream()
                .map(m -> ((LedgerEvent) m.getPayload()).receipt())
                .toList();
    }

    private SessionScript run(SessionCommand command) {
        executor.andGivenCommands(command);
        return this;
    }
}
