package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Ask for a tools/call to be admitted; requestId is the idempotency key within the session; jsonrpcId is null when
 * the edge sent none.
 */
public record RequestCall(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, String requestId, String server, String tool, String operation, String argumentsSha256, JsonRpcId jsonrpcId, Instant at) implements SessionCommand {
}
