package io.mcpledger.verify;

import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Receipt;
import java.util.Base64;

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

    /**
     * Why a receipt is not signed by the key whose keyId is {@code keyId}, or null when it is. With {@code key} null
     * only the keyId is compared (the signature is left to a checkpoint's root). One check for {@code log} and
     * {@code receipt}; the keyId is passed in, as computing it costs a hash.
     */
    static String signatureProblem(Receipt receipt, String keyId, VerifyingKey key) {
        if (!keyId.equals(receipt.keyId())) {
            return "receipt " + receipt.id() + " carries keyId " + receipt.keyId() + ", but the key's is " + keyId
                    + " (signed by another key, or the wrong key was given)";
        }
        if (key != null && !key.verify(receipt.signingInput(), Base64.getDecoder().decode(receipt.sig()))) {
            return "the signature of receipt " + receipt.id() + " does not verify: the line was changed after signing";
        }
        return null;
    }

    /** The 8-hex keyId receipts of the log named origin carry when this key signed them. */
    String keyId(String origin) {
        return LogKeys.keyId(origin, key.raw());
    }
}
