package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Revoke the session's authority; capabilityId is null to revoke whatever it holds now. */
public record RevokeCapability(@TargetAggregateIdentifier String sessionId, String capabilityId, Instant at) implements SessionCommand {
}
