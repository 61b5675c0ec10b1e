package io.mcpledger.domain.policy;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Make a policy the active one; the document was parsed and checked where it entered the ledger. */
public record ActivatePolicy(@TargetAggregateIdentifier String policyStream, PolicyDocument document, Instant at) {
    public ActivatePolicy(PolicyDocument document, Instant at) {
        this(PolicyAggregate.STREAM, document, at);
    }
}
