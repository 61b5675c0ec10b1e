package io.mcpledger.domain.principal;

import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.session.TestLedger;
import java.time.Instant;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Principal revocation: one receipt per token, forever. */
class PrincipalAggregateTest {
    private static final String TOKEN_REF = "5bfbbf33c4df012eb74e1b1318fd067e5782359c1a9cdc807baf0764fc219b89";
    private static final Instant T0 = Instant.parse("2026-11-30T07:10:00Z");

    private FixtureConfiguration<PrincipalAggregate> fixture;

    @BeforeEach
    void setUp() {
        fixture = new AggregateTestFixture<>(PrincipalAggregate.class);
        fixture.registerInjectableResource(TestLedger.context(new TestLedger.SettableAuthority()));
    }

    @Test
    void revokingAPrincipalAppendsPrincipalRevoked() {
        fixture.givenNoPriorActivity()
                .when(new RevokePrincipal(TOKEN_REF, T0))
                .expectResultMessagePayloadMatching(predicate(r -> r instanceof Receipt receipt
                        && receipt.kind() == ReceiptKind.PRINCIPAL_REVOKED
                        && receipt.body().path("tokenRef").asText().equals(TOKEN_REF)));
    }

    @Test
    void revokingAgainRepeatsTheReceiptAndAppendsNothing() {
        fixture.givenCommands(new RevokePrincipal(TOKEN_REF, T0))
                .when(new RevokePrincipal(TOKEN_REF, T0.plusSeconds(60)))
                .expectResultMessagePayloadMatching(predicate(r -> r instanceof Receipt receipt
                        && receipt.at().equals(T0)))
                .expectNoEvents();
    }
}
