package io.mcpledger.domain.log;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.VerifyingKey;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * A C2SP signed-note verifier key for Ed25519, {@code <name>+<key hash hex>+<base64(0x01 || public key)>}: the
 * name a signature line must carry, the 4-byte key hash it starts with, and the key that checks it.
 */
public final class VerifierKey {
    private final String name;
    private final byte[] keyHash;
    private final VerifyingKey key;

    private VerifierKey(String name, byte[] keyHash, VerifyingKey key) {
        this.name = name;
        this.keyHash = keyHash;
        this.key = key;
    }

    /** The verifier key of {@code key} under the note name {@code name} (the log's origin). */
    public static VerifierKey of(String name, VerifyingKey key) throws InvalidKeyException {
        requireName(name);
        return new VerifierKey(name, LogKeys.keyHash(name, key.raw()), key);
    }

    /** Parses a verifier key line, checking that its key hash matches its name and key. */
    public static VerifierKey parse(String vkey) throws InvalidKeyException {
        String[] parts = vkey.strip().split("\\+", 3);
        if (parts.length != 3) {
            throw new InvalidKeyException("Invalid verifier key, expected <name>+<hash>+<key>, got " + parts.length
                    + " '+'-separated parts");
        }
        String name = parts[0];
        requireName(name);
        if (!parts[1].matches("[0-9a-f]{8}")) {
            throw new InvalidKeyException("Invalid verifier key, the key hash '" + parts[1]
                    + "' is not 8 lowercase hex characters");
        }
        byte[] typed = StrictBase64.decode(parts[2]);
        if (typed == null) {
            throw new InvalidKeyException("Invalid verifier key, the key is not standard base64");
        }
        if (typed.length != 33 || typed[0] != LogKeys.ED25519_TYPE) {
            throw new InvalidKeyException("Invalid verifier key, expected an Ed25519 key (type 0x01 and 32 bytes)");
        }
        VerifyingKey key = VerifyingKey.checked(Arrays.copyOfRange(typed, 1, typed.length));
        VerifierKey parsed = of(name, key);
        if (!MessageDigest.isEqual(parsed.keyHash, Hex.decode(parts[1]))) {
            throw new InvalidKeyException("Invalid verifier key, its key hash " + parts[1] + " does not match its name"
                    + " and key (expected " + Hex.encode(parsed.keyHash) + ")");
        }
        return parsed;
    }

    private static void requireName(String name) throws InvalidKeyException {
        if (name.isEmpty() || name.codePoints().anyMatch(c -> c == '+' || Character.isWhitespace(c)
                || Character.isISOControl(c))) {
            throw new InvalidKeyException("Invalid verifier key, the name '" + name
                    + "' must be non-empty, with no spaces or '+'");
        }
    }

    /** The note name: for the ledger, its origin. */
    public String name() {
        return name;
    }

    /** The 4-byte key hash that starts each signature by this key. */
    public byte[] keyHash() {
        return keyHash.clone();
    }

    public VerifyingKey key() {
        return key;
    }

    /** The verifier key line. */
    public String encode() {
        return LogKeys.verifierKey(name, key.raw());
    }

    @Override
    public String toString() {
        return encode();
    }
}
