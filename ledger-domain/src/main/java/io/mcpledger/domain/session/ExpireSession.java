package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** The reaper's check: expire the session if it has been idle longer than the expiry at this time. */
public record ExpireSession(@TargetAggregateIdentifier String sessionId, Instant at) implements SessionCommand {
}
