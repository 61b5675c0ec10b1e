package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Record how an admitted call ended: ok, error or unknown. */
public record RecordOutcome(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, String requestId, String status, String resultSha256, String detail, Instant at) implements SessionCommand {
}
