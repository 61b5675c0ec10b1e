package io.mcpledger.domain.crypto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 helpers. */
public final class Sha256 {
    private Sha256() {
    }

    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** One digest per thread: looking one up costs more than hashing a receipt line. */
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(Sha256::newDigest);

    /** SHA-256 of the concatenation of {@code parts}. */
    public static byte[] digest(byte[]... parts) {
        MessageDigest md = DIGEST.get();
        md.reset();
        for (byte[] part : parts) {
            md.update(part);
        }
        return md.digest();
    }

    public static String hex(byte[]... parts) {
        return Hex.encode(digest(parts));
    }

    /** Lowercase hex SHA-256 of the UTF-8 bytes of {@code text}. */
    public static String hexOfUtf8(String text) {
        return hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
