package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.EnumMap;
import java.util.Map;

/**
 * Finds the role of a bearer credential by its SHA-256, the only form the ledger keeps. Every role's hash is
 * compared, in constant time, whatever matched, so timing reveals neither the credential nor the role.
 */
@Requires(notEnv = Environments.EDGE)
@Singleton
public class Credentials {
    private final Map<Role, byte[]> hashes = new EnumMap<>(Role.class);

    public Credentials(LoadedState state) {
        state.credentialHashes().forEach((role, hex) -> hashes.put(role, Hex.decode(hex)));
    }

    /** The role whose credential this is, or null. */
    public Role roleOf(String credential) {
        byte[] presented = Sha256.digest(credential.getBytes(StandardCharsets.UTF_8));
        Role found = null;
        for (Map.Entry<Role, byte[]> entry : hashes.entrySet()) {
            if (MessageDigest.isEqual(presented, entry.getValue()) && found == null) {
                found = entry.getKey();
            }
        }
        return found;
    }
}
