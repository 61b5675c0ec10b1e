package io.mcpledger.domain.receipt;

import io.mcpledger.domain.crypto.VerifyingKey;
import java.util.Base64;
import java.util.Optional;

/** Checks a receipt's signature and keyId against a public key and the keyId it has under the log's origin. */
public final class ReceiptVerifier {
    private final VerifyingKey key;
    private final String keyId;

    public ReceiptVerifier(VerifyingKey key, String keyId) {
        this.key = key;
        this.keyId = keyId;
    }

    /** Empty when the receipt verifies; otherwise why it does not. */
    public Optional<String> check(Receipt receipt) {
        if (!keyId.equals(receipt.keyId())) {
            return Optional.of("keyId " + receipt.keyId() + " is not the key " + keyId);
        }
        if (!key.verify(receipt.signingInput(), Base64.getDecoder().decode(receipt.sig()))) {
            return Optional.of("signature does not verify");
        }
        return Optional.empty();
    }
}
