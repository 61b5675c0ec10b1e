package io.mcpledger.app.statedir;

import io.mcpledger.domain.crypto.SigningKey;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;

/**
 * What the ledger needs from its state directory: the signing key, the log's origin, and the SHA-256 (lowercase hex)
 * of each role's bearer credential.
 */
public record LoadedState(Path directory, SigningKey signingKey, String origin, Map<Role, String> credentialHashes) {
    public LoadedState {
        credentialHashes = Map.copyOf(credentialHashes);
    }

    /** The public key as a database's metadata row names the log's key: its 32 raw bytes in base64. */
    public String publicKeyText() {
        return Base64.getEncoder().encodeToString(signingKey.publicKey().raw());
    }
}
