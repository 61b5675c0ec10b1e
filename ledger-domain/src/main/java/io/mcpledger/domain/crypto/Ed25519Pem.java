package io.mcpledger.domain.crypto;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/**
 * PEM encodings of Ed25519 keys that OpenSSL reads: PKCS#8 v1 for the private key (Bouncy Castle's
 * default v2 form, with the public key attached, is refused by OpenSSL 3.0) and SubjectPublicKeyInfo
 * for the public key.
 */
public final class Ed25519Pem {
    /** RFC 8410 OID of Ed25519; Bouncy Castle keeps its own constant internal. */
    private static final ASN1ObjectIdentifier ID_ED25519 = new ASN1ObjectIdentifier("1.3.101.112");
    private static final AlgorithmIdentifier ED25519 = new AlgorithmIdentifier(ID_ED25519);
    private static final String PRIVATE = "PRIVATE KEY";
    private static final String PUBLIC = "PUBLIC KEY";

    private Ed25519Pem() {
    }

    public static String privateKeyPem(byte[] seed) {
        try {
            PrivateKeyInfo info = new PrivateKeyInfo(ED25519, new DEROctetString(seed));
            return pem(PRIVATE, info.getEncoded(ASN1Encoding.DER));
        } catch (IOException e) {
            throw new IllegalStateException("DER encoding of an in-memory key failed", e);
        }
    }

    public static String publicKeyPem(byte[] publicRaw) {
        try {
            return pem(PUBLIC, new SubjectPublicKeyInfo(ED25519, publicRaw).getEncoded(ASN1Encoding.DER));
        } catch (IOException e) {
            throw new IllegalStateException("DER encoding of an in-memory key failed", e);
        }
    }

    /** The 32-byte seed of a PKCS#8 Ed25519 private key (v1 or v2). */
    public static byte[] readPrivateSeed(String pem) throws InvalidKeyException {
        byte[] der = unpem(pem, PRIVATE);
        try {
            PrivateKeyInfo info = PrivateKeyInfo.getInstance(der);
            requireEd25519(info.getPrivateKeyAlgorithm());
            byte[] seed = ASN1OctetString.getInstance(info.parsePrivateKey()).getOctets();
            if (seed.length != 32) {
                throw new InvalidKeyException("Invalid key, Ed25519 private key must be 32 bytes, found " + seed.length);
            }
            return seed;
        } catch (IllegalArgumentException | IOException e) {
            throw new InvalidKeyException("Invalid key, malformed PKCS#8 structure: " + e.getMessage(), e);
        }
    }

    /** The 32 raw bytes of a SubjectPublicKeyInfo Ed25519 public key. */
    public static byte[] readPublicRaw(String pem) throws InvalidKeyException {
        byte[] der = unpem(pem, PUBLIC);
        try {
            SubjectPublicKeyInfo info = SubjectPublicKeyInfo.getInstance(der);
            requireEd25519(info.getAlgorithm());
            byte[] raw = info.getPublicKeyData().getOctets();
            if (raw.length != 32) {
                throw new InvalidKeyException("Invalid key, Ed25519 public key must be 32 bytes, found " + raw.length);
            }
            return raw;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new InvalidKeyException("Invalid key, malformed SubjectPublicKeyInfo: " + e.getMessage(), e);
        }
    }

    private static void requireEd25519(AlgorithmIdentifier algorithm) throws InvalidKeyException {
        if (!ID_ED25519.equals(algorithm.getAlgorithm())) {
            throw new InvalidKeyException("Invalid key, expected an Ed25519 key (OID 1.3.101.112), found "
                    + algorithm.getAlgorithm().getId());
        }
    }

    private static String pem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    private static byte[] unpem(String pem, String label) throws InvalidKeyException {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < 0 || to < from) {
            throw new InvalidKeyException("Invalid key, no " + label + " PEM section");
        }
        String body = pem.substring(from + begin.length(), to).replaceAll("\\s", "");
        if (body.isEmpty()) {
            throw new InvalidKeyException("Invalid key, empty PEM section");
        }
        try {
            return Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            throw new InvalidKeyException("Invalid key, PEM body is not base64", e);
        }
    }
}
