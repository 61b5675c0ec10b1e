package io.mcpledger.domain.session;

/** The MCP client's self-description from initialize; either field may be absent. */
public record ClientInfo(String name, String version) {
}
