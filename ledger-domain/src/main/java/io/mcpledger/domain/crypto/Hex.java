package io.mcpledger.domain.crypto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Lowercase hex, the only hex form the ledger writes or accepts. */
public final class Hex {
    private static final HexFormat LOWER = HexFormat.of();

    private Hex() {
    }

    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** Every receipt's hash is written out as hex: one pass into the string's own bytes. */
    public static String encode(byte[] bytes) {
        byte[] text = new byte[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            text[2 * i] = DIGITS[(bytes[i] >> 4) & 0xF];
            text[2 * i + 1] = DIGITS[bytes[i] & 0xF];
        }
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    /** Decodes lowercase hex; rejects uppercase, odd lengths and other characters. */
    public static byte[] decode(String hex) {
        if (!isLowerHex(hex)) {
            throw new IllegalArgumentException("not lowercase hex: " + hex);
        }
        return LOWER.parseHex(hex);
    }

    /** True when {@code s} is non-empty lowercase hex of even length. */
    public static boolean isLowerHex(String s) {
        if (s == null || s.isEmpty() || s.length() % 2 != 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code s} is lowercase hex of exactly {@code chars} characters. */
    public static boolean isLowerHex(String s, int chars) {
        return s != null && s.length() == chars && isLowerHex(s);
    }
}
