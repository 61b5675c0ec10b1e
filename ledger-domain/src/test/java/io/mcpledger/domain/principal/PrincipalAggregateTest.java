package io.mcpledger.domain.principal;

import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.Authority;
import io.mcpledger.domain.session.LedgerContext;
import io.mcpledger.domain.session.RandomIds;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
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
        Authority none = new Authority() {
            @Override
            public Optional<PolicyDocument> activePolicy() {
                return Optional.empty();
            }

            @Override
            public boolean isPrincipalRevoked(String tokenRef) {
                return false;
            }
        };
        SigningKey key = SigningKey.fromSeed(Hex.decode("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"));
        fixture = new AggregateTestFixture<>(PrincipalAggregate.class);
        fixture.registerInjectableResource(new LedgerContext(new ReceiptSigner(key, "ledger.example/test"), none,
                Duration.ofMinutes(30), new RandomIds()));
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
