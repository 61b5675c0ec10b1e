package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Resume a live session, possibly from a restarted edge; a null protocolVersion means 2025-03-26. */
public record ResumeSession(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, String protocolVersion, Edge edge, Instant at) implements SessionCommand {
}
