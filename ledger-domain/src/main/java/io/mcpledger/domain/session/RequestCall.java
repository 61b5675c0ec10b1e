package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Ask for a tools/call to be admitted; requestId is the idempotency key within the session. */
public record RequestCall(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, String requestId, String server, String tool, String operation, String argumentsSha256, String jsonrpcId, Instant at) implements SessionCommand {
}
