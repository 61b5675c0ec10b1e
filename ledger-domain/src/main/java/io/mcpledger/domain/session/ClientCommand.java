package io.mcpledger.domain.session;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** A command on one client stream (contract section 15): a call made without a session, and what follows it. */
public interface ClientCommand {
    /** The tokenRef of the client stream. */
    String tokenRef();

    /** The stream's name: Axon's aggregate identifier of its {@link ClientAggregate}. */
    @TargetAggregateIdentifier
    default String stream() {
        return ClientStreams.stream(tokenRef());
    }
}
