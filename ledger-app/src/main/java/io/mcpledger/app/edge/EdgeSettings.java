package io.mcpledger.app.edge;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What {@code ledger-app edge} runs with (contract section 16), every flag checked: where it listens, the ledger it
 * asks and the edge credential it asks with, the client tokens it accepts (by SHA-256, each with its principal), the
 * stdio server's command, and how it names itself to the ledger.
 *
 * @param serverId       the MCP server's id in the ledger's calls; null: the stdio server's name from its initialize
 * @param expiredStatus  what an expired session answers: 410 (the default) or 404 (which makes clients that
 *                       re-initialize only on 404 do so)
 */
public record EdgeSettings(String host, int port, URI ledger, String ledgerCredential,
                           Map<String, String> clients, String serverId, String edgeId, Duration callTimeout,
                           int expiredStatus, List<String> command) {
    public EdgeSettings {
        clients = Map.copyOf(clients);
        command = List.copyOf(command);
    }
}
