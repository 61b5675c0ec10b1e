package io.mcpledger.domain.crypto;

import java.util.HexFormat;

/** Lowercase hex, the only hex form the ledger writes or accepts. */
public final class Hex {
    private static final HexFormat LOWER = HexFormat.of();

    private Hex() {
    }

    public static String encode(byte[] bytes) {
        return LOWER.formatHex(bytes);
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
