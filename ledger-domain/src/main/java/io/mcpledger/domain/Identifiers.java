package io.mcpledger.domain;

/** The contract's rule for identifiers: visible ASCII (0x21 to 0x7E), at least one character. */
public final class Identifiers {
    private Identifiers() {
    }

    /** True when {@code s} is 1 to {@code maxLength} visible ASCII characters. */
    public static boolean isVisibleAscii(String s, int maxLength) {
        if (s == null || s.isEmpty() || s.length() > maxLength) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }
}
