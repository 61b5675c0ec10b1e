package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** The edge ends the session; its id becomes a tombstone forever. */
public record DeleteSession(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, Instant at) implements SessionCommand {
}
