package io.mcpledger.domain.log;

import java.util.Base64;

/**
 * Standard base64 as C2SP and Go's {@code encoding/base64.StdEncoding} read it: padded to a multiple of four
 * characters. Java's decoder also accepts unpadded text, which a second implementation would refuse.
 */
public final class StrictBase64 {
    private StrictBase64() {
    }

    /**
     * The decoded bytes, or null when {@code text} is not the one padded standard base64 spelling of its bytes. Java's
     * decoder also ignores the unused low bits of the last character, so several spellings decode alike; only the one
     * the encoder writes is accepted, so that no byte of a signed text can change unnoticed.
     */
    public static byte[] decode(String text) {
        if (text.length() % 4 != 0) {
            return null;
        }
        try {
            byte[] bytes = Base64.getDecoder().decode(text);
            return Base64.getEncoder().encodeToString(bytes).equals(text) ? bytes : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
