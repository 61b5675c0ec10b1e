package io.mcpledger.domain.crypto;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * An Ed25519 private key, signing with Bouncy Castle's low-level API (much faster here than the JDK
 * provider). Thread-safe: signing keeps no per-call state.
 */
public final class SigningKey {
    private final Ed25519PrivateKeyParameters privateKey;
    private final VerifyingKey publicKey;

    private SigningKey(Ed25519PrivateKeyParameters privateKey) {
        this.privateKey = privateKey;
        this.publicKey = VerifyingKey.fromRaw(privateKey.generatePublicKey().getEncoded());
    }

    public static SigningKey generate(SecureRandom random) {
        return new SigningKey(new Ed25519PrivateKeyParameters(random));
    }

    public static SigningKey fromSeed(byte[] seed) {
        if (seed.length != Ed25519PrivateKeyParameters.KEY_SIZE) {
            throw new IllegalArgumentException("an Ed25519 seed is 32 bytes, got " + seed.length);
        }
        return new SigningKey(new Ed25519PrivateKeyParameters(seed, 0));
    }

    public static SigningKey fromPem(String pem) throws InvalidKeyException {
        return fromSeed(Ed25519Pem.readPrivateSeed(pem));
    }

    public byte[] sign(byte[] message) {
        byte[] signature = new byte[Ed25519PrivateKeyParameters.SIGNATURE_SIZE];
        privateKey.sign(org.bouncycastle.math.ec.rfc8032.Ed25519.Algorithm.Ed25519, null,
                message, 0, message.length, signature, 0);
        return signature;
    }

    public VerifyingKey publicKey() {
        return publicKey;
    }

    /** PKCS#8 v1 PEM, readable by {@code openssl pkey}. */
    public String privatePem() {
        return Ed25519Pem.privateKeyPem(privateKey.getEncoded());
    }

    /** Kept package-private: the raw key never needs to leave this package. */
    Ed25519PublicKeyParameters publicParameters() {
        return new Ed25519PublicKeyParameters(publicKey.raw(), 0);
    }
}
