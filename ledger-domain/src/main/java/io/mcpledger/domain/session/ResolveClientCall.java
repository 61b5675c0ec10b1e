package io.mcpledger.domain.session;

import java.time.Instant;

/** An operator settles a client stream's call whose outcome is unknown. */
public record ResolveClientCall(String tokenRef, String requestId, String status, String note, Instant at)
        implements ClientCommand {
}
