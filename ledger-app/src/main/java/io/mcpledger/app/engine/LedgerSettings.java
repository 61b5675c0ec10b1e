package io.mcpledger.app.engine;

import io.mcpledger.app.cli.HostPort;
import io.mcpledger.domain.policy.PolicyDocument;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code serve} was asked to run: the state directory, the origin it must have (null: whatever it
 * was created with), the policy to activate (null: keep the active one) and the service limits.
 */
public record LedgerSettings(Path stateDirectory, String origin, HostPort listen, PolicyDocument policy,
                             Duration idleExpiry, int maxActiveSessions, Duration checkpointInterval) {
}
