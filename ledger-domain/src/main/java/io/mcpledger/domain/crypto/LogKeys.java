package io.mcpledger.domain.crypto;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * C2SP signed-note names for an Ed25519 key: the key hash ({@code keyId}), the verifier key line, and
 * the default origin of contract section 2.
 */
public final class LogKeys {
    /** The C2SP signature type byte for Ed25519. */
    public static final byte ED25519_TYPE = 0x01;

    private LogKeys() {
    }

    /** First 4 bytes of SHA-256(origin || "\n" || 0x01 || public key). */
    public static byte[] keyHash(String origin, byte[] publicRaw) {
        byte[] digest = Sha256.digest(origin.getBytes(StandardCharsets.UTF_8), new byte[] {'\n', ED25519_TYPE}, publicRaw);
        return Arrays.copyOf(digest, 4);
    }

    /** The key hash as 8 lowercase hex characters, the receipts' {@code keyId}. */
    public static String keyId(String origin, byte[] publicRaw) {
        return Hex.encode(keyHash(origin, publicRaw));
    }

    /** {@code <origin>+<keyId hex>+<base64(0x01 || public key)>}. */
    public static String verifierKey(String origin, byte[] publicRaw) {
        byte[] typed = new byte[publicRaw.length + 1];
        typed[0] = ED25519_TYPE;
        System.arraycopy(publicRaw, 0, typed, 1, publicRaw.length);
        return origin + "+" + keyId(origin, publicRaw) + "+" + Base64.getEncoder().encodeToString(typed);
    }

    /** {@code ledger.local/} followed by the first 16 hex characters of SHA-256 of the raw public key. */
    public static String defaultOrigin(byte[] publicRaw) {
        return "ledger.local/" + Sha256.hex(publicRaw).substring(0, 16);
    }
}
