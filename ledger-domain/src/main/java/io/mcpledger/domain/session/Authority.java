package io.mcpledger.domain.session;

import io.mcpledger.domain.policy.PolicyDocument;
import java.util.Optional;

/**
 * The ledger-wide authority an admission decision reads: the active policy and the revoked principals.
 * Implementations must reflect every activation and revocation that has been answered.
 */
public interface Authority {
    Optional<PolicyDocument> activePolicy();

    boolean isPrincipalRevoked(String tokenRef);
}
