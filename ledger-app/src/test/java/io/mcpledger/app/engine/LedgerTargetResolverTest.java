package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.domain.policy.ActivatePolicy;
import io.mcpledger.domain.policy.PolicyAggregate;
import io.mcpledger.domain.principal.RevokePrincipal;
import io.mcpledger.domain.session.DeleteSession;
import java.time.Instant;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.junit.jupiter.api.Test;

/** Commands reach their stream through their own accessors, and anything else through Axon's annotations. */
class LedgerTargetResolverTest {
    private static final Instant AT = Instant.parse("2026-11-30T07:00:00Z");

    record Foreign(@TargetAggregateIdentifier String id) {
    }

    private static String target(Object command) {
        return LedgerTargetResolver.INSTANCE.resolveTarget(GenericCommandMessage.asCommandMessage(command)).getIdentifier();
    }

    @Test
    void aSessionCommandAddressesItsSession() {
        assertThat(target(new DeleteSession("mcp-1", "ab".repeat(32), AT))).isEqualTo("mcp-1");
    }

    @Test
    void anActivationAddressesThePolicyStream() throws Exception {
        assertThat(target(new ActivatePolicy(PolicyFiles.parse("capabilities: {}"), AT))).isEqualTo(PolicyAggregate.STREAM);
    }

    @Test
    void aPrincipalRevocationAddressesItsTokenRef() {
        assertThat(target(new RevokePrincipal("cd".repeat(32), AT))).isEqualTo("cd".repeat(32));
    }

    @Test
    void anyOtherCommandFallsBackToItsAnnotation() {
        assertThat(target(new Foreign("x-1"))).isEqualTo("x-1");
    }

    @Test
    void aCommandWithoutATargetIsRefused() {
        assertThatThrownBy(() -> target(new DeleteSession(null, "ab".repeat(32), AT)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("DeleteSession names no target stream");
    }
}
