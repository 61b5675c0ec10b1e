package io.mcpledger.app.policy;

import io.mcpledger.domain.policy.InvalidPolicyException;

/** A policy that is not parseable YAML or JSON at all, as opposed to parseable but not following contract section 5. */
public class PolicySyntaxException extends InvalidPolicyException {
    public PolicySyntaxException(String message) {
        super(message);
    }
}
