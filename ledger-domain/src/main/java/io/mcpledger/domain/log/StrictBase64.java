package io.mcpledger.domain.log;

import java.util.Base64;

/**
 * Standard base64 as C2SP and Go's {@code encoding/base64.StdEncoding} read it: padded to a multiple of four
 * characters. Java's decoder also accepts unpadded text, which a second implementation would refuse.
 */
public final class StrictBase64 {
    private StrictBase64() {
    }

    /** The decoded bytes, or null when {@code text} is not padded standard base64. */
    public static byte[] decode(String text) {
        if (text.length() % 4 != 0) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
