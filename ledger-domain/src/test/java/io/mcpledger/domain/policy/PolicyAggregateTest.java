package io.mcpledger.domain.policy;

import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.session.TestLedger;
import java.time.Instant;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Policy activation (contract section 5): appended when the hash changes, nothing when it is already active. */
class PolicyAggregateTest {
    private static final Instant T0 = Instant.parse("2026-11-30T06:59:00Z");
    private static final String QUOTE = "{\"capabilities\":{\"default\":{\"tools\":[{\"operations\":[\"invoke\"],"
            + "\"server\":\"pricing\",\"tool\":\"quote\",\"ttl\":300}]}}}";
    private static final String DISCOUNT = QUOTE.replace("quote", "discount");

    private FixtureConfiguration<PolicyAggregate> fixture;

    @BeforeEach
    void setUp() {
        fixture = new AggregateTestFixture<>(PolicyAggregate.class);
        fixture.registerInjectableResource(TestLedger.context(new TestLedger.SettableAuthority()));
    }

    @Test
    void theFirstPolicyIsActivated() throws Exception {
        String hash = PolicyDocument.fromJson(Canonical.parse(QUOTE)).hash();
        fixture.givenNoPriorActivity()
                .when(new ActivatePolicy(policy(QUOTE), T0))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof PolicyAnswer p && p.policy().equals(hash)
                        && p.receipt().kind() == ReceiptKind.POLICY_ACTIVATED
                        && p.receipt().body().path("policy").asText().equals(hash) && p.receipt().session() == null));
    }

    @Test
    void activatingTheActivePolicyAgainAppendsNothing() {
        fixture.givenCommands(new ActivatePolicy(policy(QUOTE), T0))
                .when(new ActivatePolicy(policy(QUOTE), T0.plusSeconds(5)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof PolicyAnswer p && p.receipt() == null))
                .expectNoEvents();
    }

    @Test
    void aDifferentPolicyIsActivated() {
        fixture.givenCommands(new ActivatePolicy(policy(QUOTE), T0))
                .when(new ActivatePolicy(policy(DISCOUNT), T0.plusSeconds(5)))
                .expectEventsMatching(predicate(events -> events.size() == 1));
    }

    private static PolicyDocument policy(String json) {
        try {
            return PolicyDocument.fromCanonical(json);
        } catch (InvalidPolicyException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
