package io.mcpledger.domain.crypto;

import java.util.Arrays;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/** An Ed25519 public key. Thread-safe. */
public final class VerifyingKey {
    private final byte[] raw;
    private final Ed25519PublicKeyParameters parameters;

    private VerifyingKey(byte[] raw) {
        this.raw = raw.clone();
        this.parameters = new Ed25519PublicKeyParameters(this.raw, 0);
    }

    /** The key of 32 raw bytes; IllegalArgumentException unless they are 32 and encode a point of the curve. */
    public static VerifyingKey fromRaw(byte[] raw) {
        if (raw.length != Ed25519PublicKeyParameters.KEY_SIZE) {
            throw new IllegalArgumentException("an Ed25519 public key is 32 bytes, got " + raw.length);
        }
        return new VerifyingKey(raw);
    }

    /** The key of 32 raw bytes, refused as an InvalidKeyException unless they encode a point of the curve. */
    public static VerifyingKey checked(byte[] raw) throws InvalidKeyException {
        try {
            return fromRaw(raw);
        } catch (IllegalArgumentException e) {
            // Bouncy Castle refuses bytes that are not a point of the curve when it decodes them.
            throw new InvalidKeyException("Invalid key, not an Ed25519 public key: " + e.getMessage(), e);
        }
    }

    public static VerifyingKey fromPem(String pem) throws InvalidKeyException {
        return checked(Ed25519Pem.readPublicRaw(pem));
    }

    public boolean verify(byte[] message, byte[] signature) {
        if (signature == null || signature.length != Ed25519.SIGNATURE_SIZE) {
            return false;
        }
        return parameters.verify(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
    }

    public byte[] raw() {
        return raw.clone();
    }

    public String pem() {
        return Ed25519Pem.publicKeyPem(raw);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VerifyingKey other && Arrays.equals(raw, other.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }
}
