package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** An operator settles a call whose outcome is unknown: ok, error or not_run. */
public record ResolveCall(@TargetAggregateIdentifier String sessionId, String requestId, String status, String note, Instant at) implements SessionCommand {
}
