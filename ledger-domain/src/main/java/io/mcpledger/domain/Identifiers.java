package io.mcpledger.domain;

/** The contract's rules for identifiers (visible ASCII, 0x21 to 0x7E, at least one character) and for free text. */
public final class Identifiers {
    /** The longest identifier the contract allows (contract section 11): principals, servers, tools, request ids... */
    public static final int MAX_LENGTH = 256;

    private Identifiers() {
    }

    /** True when {@code s} is an identifier of the contract: 1 to {@link #MAX_LENGTH} visible ASCII characters. */
    public static boolean isIdentifier(String s) {
        return isVisibleAscii(s, MAX_LENGTH);
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

    /**
     * True when {@code s} is Unicode text that UTF-8 can carry: no unpaired surrogate. Java strings (and JSON
     * escapes such as a lone {@code \\ud800}) can hold one, but no UTF-8 byte sequence encodes it.
     */
    public static boolean isWellFormedText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
