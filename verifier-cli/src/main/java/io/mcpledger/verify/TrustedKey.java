package io.mcpledger.verify;

import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.VerifierKey;

/**
 * The public key a command verifies with, and where it came from. A {@code --vkey} also names the log (its origin);
 * a PEM key does not, so the log's name is then read from what is verified.
 */
record TrustedKey(VerifyingKey key, String name, String source, boolean fromBundle) {

    /** The verifier key for a log named origin; refused when a --vkey names another log. */
    VerifierKey forOrigin(String origin) throws InvalidProofException {
        if (name != null && !name.equals(origin)) {
            throw new InvalidProofException("it is signed for the log '" + origin + "', but the key given is for '"
                    + name + "'");
        }
        try {
            return VerifierKey.of(origin, key);
        } catch (InvalidKeyException e) {
            throw new InvalidProofException("the log name '" + origin + "' cannot name a key: " + e.getMessage());
        }
    }

    /** The 8-hex keyId receipts of the log named origin carry when this key signed them. */
    String keyId(String origin) {
        return LogKeys.keyId(origin, key.raw());
    }
}
