package io.mcpledger.domain.policy;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Make a policy the active one; {@code document} is its canonical JSON. */
public record ActivatePolicy(@TargetAggregateIdentifier String policyStream, String document, Instant at) {
    public ActivatePolicy(String document, Instant at) {
        this(PolicyAggregate.STREAM, document, at);
    }
}
