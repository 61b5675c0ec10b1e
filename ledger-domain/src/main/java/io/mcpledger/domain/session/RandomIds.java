package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;

/**
 * Random ids from a CSPRNG, one generator per thread so concurrent commands do not contend on it: a DRBG (NIST SP
 * 800-90A, seeded by the JDK from the system's entropy) of the thread's own. {@code new SecureRandom()} gives
 * NativePRNG on Linux, whose instances all read one generator under one lock, so one per thread still waited on each
 * other (JFR at 1,000 admissions/s: a commit worker waited 4.6 ms for it; benchmarks.md, section 8).
 */
public final class RandomIds implements Ids {
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(RandomIds::newGenerator);
    private static final int TIME_BYTES = 6;
    private static final int RECEIPT_RANDOM_BYTES = 10;

    /**
     * {@code rcpt-} and 32 hex digits: the receipt's time in milliseconds (12 digits) then 80 random bits. Ids made
     * later sort later, so the log's index of receipt ids grows at its end instead of rewriting a page anywhere in it
     * on every commit; the time is the receipt's own {@code at}, so the id tells nothing the receipt does not.
     */
    @Override
    public String receiptId(Instant at) {
        byte[] time = new byte[TIME_BYTES];
        long millis = at.toEpochMilli();
        for (int i = 0; i < TIME_BYTES; i++) {
            time[i] = (byte) (millis >>> (8 * (TIME_BYTES - 1 - i)));
        }
        return "rcpt-" + Hex.encode(time) + random(RECEIPT_RANDOM_BYTES);
    }

    @Override
    public String capabilityId() {
        return "cap-" + random(16);
    }

    /** 16 bytes for a session id's random part. */
    public static byte[] sessionRandom() {
        return randomBytes(16);
    }

    /** This thread's generator. */
    static SecureRandom generator() {
        return RANDOM.get();
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no DRBG, which every JDK since 9 has", e);
        }
    }

    private static String random(int bytes) {
        return Hex.encode(randomBytes(bytes));
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.get().nextBytes(bytes);
        return bytes;
    }
}
