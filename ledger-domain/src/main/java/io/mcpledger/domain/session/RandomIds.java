package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import java.security.SecureRandom;

/** Random ids from a CSPRNG, one generator per thread so concurrent commands do not contend on it. */
public final class RandomIds implements Ids {
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(SecureRandom::new);

    @Override
    public String receiptId() {
        return "rcpt-" + random(16);
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
