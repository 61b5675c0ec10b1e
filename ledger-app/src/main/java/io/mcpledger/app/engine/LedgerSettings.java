package io.mcpledger.app.engine;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.query.LedgerProjector;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code serve} was asked to run: the state directory, the origin it must have (null: whatever it
 * was created with), the policy to activate (null: keep the active one), the service limits and the sizes of the
 * projections' caches.
 */
public record LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
                             Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval,
                             LedgerProjector.Caches caches) {
    /** With the default cache sizes. */
    public LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
            Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval) {
        this(stateDirectory, origin, listen, policy, idleExpiry, maxActiveSessions, checkpointInterval,
                LedgerProjector.Caches.DEFAULT);
    }
}
