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

    /**
     * True when text[from, to) is the one padded standard base64 spelling of {@code bytes} bytes: what
     * {@code decode(text.substring(from, to))} would accept with a result of that length, without decoding.
     */
    public static boolean isCanonical(CharSequence text, int from, int to, int bytes) {
        if (bytes < 0 || to - from != (bytes + 2) / 3 * 4) {
            return false;
        }
        int padding = (3 - bytes % 3) % 3;
        for (int i = from; i < to - padding; i++) {
            if (sextet(text.charAt(i)) < 0) {
                return false;
            }
        }
        for (int i = to - padding; i < to; i++) {
            if (text.charAt(i) != '=') {
                return false;
            }
        }
        // The bits of the last character the bytes do not fill must be zero, as the encoder writes them.
        return switch (padding) {
            case 1 -> (sextet(text.charAt(to - 2)) & 0x3) == 0;
            case 2 -> (sextet(text.charAt(to - 3)) & 0xF) == 0;
            default -> true;
        };
    }

    /** The value of a character of the standard base64 alphabet, or -1. */
    private static int sextet(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    }
}
