package io.mcpledger.domain.principal;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Revoke a client token, named by its tokenRef, for every session now and later. */
public record RevokePrincipal(@TargetAggregateIdentifier String tokenRef, Instant at) {
}
