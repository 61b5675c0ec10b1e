package io.mcpledger.domain.session;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Open a session for a verified principal; the edge computed the id from the client token. */
public record InitializeSession(@TargetAggregateIdentifier String sessionId, String clientTokenSha256, String principal, String serverId, String protocolVersion, ClientInfo clientInfo, Edge edge, Instant at) implements SessionCommand {
}
