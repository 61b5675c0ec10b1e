package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Session ids {@code mcp-<r>-<t>} of contract section 4: {@code t} is the first 16 bytes of
 * HMAC-SHA256(key = the client token's SHA-256, message = r). Whoever holds the token can check that an
 * id was issued to it; an id alone grants nothing.
 */
public final class SessionIds {
    private static final String PREFIX = "mcp-";
    private static final int RANDOM_BYTES = 16;
    private static final int TAG_BYTES = 16;
    private static final int ID_LENGTH = PREFIX.length() + 2 * RANDOM_BYTES + 1 + 2 * TAG_BYTES;

    /**
     * Each thread's HMAC, keyed anew for each id: {@code Mac.getInstance} and a new instance's first {@code init} look
     * the provider up, which was most of an id's check (2% of a commit worker's samples at saturation).
     */
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    });

    private SessionIds() {
    }

    /** The id for 16 random bytes, bound to the token whose SHA-256 is given in lowercase hex. */
    public static String issue(String clientTokenSha256Hex, byte[] random16) {
        if (!Hex.isLowerHex(clientTokenSha256Hex, 64)) {
            throw new IllegalArgumentException("a client token's SHA-256 is 64 lowercase hex characters");
        }
        if (random16.length != RANDOM_BYTES) {
            throw new IllegalArgumentException("a session id needs 16 random bytes, got " + random16.length);
        }
        return PREFIX + Hex.encode(random16) + "-" + Hex.encode(tag(Hex.decode(clientTokenSha256Hex), random16));
    }

    /** True when the id is well formed and its tag was made with this token; compares in constant time. */
    public static boolean isIssuedTo(String sessionId, String clientTokenSha256Hex) {
        if (sessionId == null || sessionId.length() != ID_LENGTH || !sessionId.startsWith(PREFIX)
                || sessionId.charAt(PREFIX.length() + 2 * RANDOM_BYTES) != '-'
                || !Hex.isLowerHex(clientTokenSha256Hex, 64)) {
            return false;
        }
        String r = sessionId.substring(PREFIX.length(), PREFIX.length() + 2 * RANDOM_BYTES);
        String t = sessionId.substring(PREFIX.length() + 2 * RANDOM_BYTES + 1);
        if (!Hex.isLowerHex(r) || !Hex.isLowerHex(t)) {
            return false;
        }
        byte[] expected = tag(Hex.decode(clientTokenSha256Hex), Hex.decode(r));
        return MessageDigest.isEqual(expected, Hex.decode(t));
    }

    private static byte[] tag(byte[] tokenSha256, byte[] random) {
        try {
            Mac mac = HMAC.get();
            mac.init(new SecretKeySpec(tokenSha256, "HmacSHA256"));
            return Arrays.copyOf(mac.doFinal(random), TAG_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }

}
