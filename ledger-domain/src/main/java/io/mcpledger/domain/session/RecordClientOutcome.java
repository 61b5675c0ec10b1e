package io.mcpledger.domain.session;

import java.time.Instant;

/** An edge records the outcome of a call it made without a session; {@code resultSha256} and {@code detail} may be null. */
public record RecordClientOutcome(String clientTokenSha256, String requestId, String status, String resultSha256,
                                  String detail, Instant at) implements ClientCommand {
    @Override
    public String tokenRef() {
        return TokenRefs.of(clientTokenSha256);
    }
}
