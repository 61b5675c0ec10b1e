package io.mcpledger.domain.session;

import java.time.Instant;

/**
 * Ask for a tools/call made without a session to be admitted (contract section 15). {@code clientInfo} and
 * {@code jsonrpcId} are null when the edge sent none; {@code edge} is required.
 */
public record RequestClientCall(String clientTokenSha256, String requestId, String principal, String serverId,
                                String protocolVersion, ClientInfo clientInfo, Edge edge, String server, String tool,
                                String operation, String argumentsSha256, JsonRpcId jsonrpcId, Instant at)
        implements ClientCommand {
    @Override
    public String tokenRef() {
        return TokenRefs.of(clientTokenSha256);
    }
}
