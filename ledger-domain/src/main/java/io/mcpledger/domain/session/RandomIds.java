package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import java.security.SecureRandom;
import java.time.Instant;

/** Random ids from a CSPRNG, one generator per thread so concurrent commands do not contend on it. */
public final class RandomIds implements Ids {
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(SecureRandom::new);

    /**
     * {@code rcpt-} and 32 hex digits: the receipt's time in milliseconds (12 digits) then 80 random bits. Ids made
     * later sort later, so the log's index of receipt ids grows at its end instead of rewriting a page anywhere in it
     * on every commit; the time is the receipt's own {@code at}, so the id tells nothing the receipt does not.
     */
    @Override
    public String receiptId(Instant at) {
        return "rcpt-" + String.format("%012x", at.toEpochMilli() & 0xffff_ffff_ffffL) + random(10);
    }

    @Override
    public String capabilityId() {
        return "cap-" + random(16);
    }

    /** 16 bytes for a session id's random part. */
    public static byte[] sessionRandom() {
        byte[] bytes = new byte[16];
        RANDOM.get().nextBytes(bytes);
        return bytes;
    }

    private static String random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.get().nextBytes(b);
        return Hex.encode(b);
    }
}
