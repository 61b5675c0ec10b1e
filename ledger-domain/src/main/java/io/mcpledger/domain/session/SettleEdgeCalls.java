package io.mcpledger.domain.session;

import java.time.Instant;

/**
 * An edge announced a new incarnation (contract section 15): every call of this client stream admitted through edge
 * {@code edgeId} by another incarnation and still without an outcome gets the outcome {@code unknown}.
 */
public record SettleEdgeCalls(String tokenRef, String edgeId, String incarnation, Instant at) implements ClientCommand {
}
