package io.mcpledger.domain.receipt;

import java.util.HashMap;
import java.util.Map;

/**
 * Decides in one pass, without building a tree or encoding anything, whether JSON text is already in the canonical
 * form {@link Canonical} produces (RFC 8785) — for the values receipts hold: strings, integers, booleans, null,
 * objects and arrays. It answers exactly as {@code Canonical.jcs(parse(text)).equals(text)} does for such text
 * (a property test holds it to that), about ten times faster: readers of the log check every line this way.
 *
 * <p>Canonical means: no whitespace; object members in ascending order of their names' UTF-16 code units, each name
 * once; strings with literal characters except {@code "} and {@code \} (escaped as such) and U+0000 to U+001F (as
 * {@code \b \t \n \f \r}, else {@code \}{@code u00xx} in lowercase hex); integers without sign on zero, leading zeros,
 * fraction or exponent. Numbers with a fraction or exponent, and unpaired surrogates, are refused: receipts hold
 * neither, so this never has to decide their canonical spelling.
 */
public final class CanonicalForm {
    /** What a top-level member's value is. */
    enum Kind { STRING, INTEGER, OBJECT, ARRAY, BOOLEAN, NULL }

    /** A top-level member: its kind, and its value when it is a string (decoded) or an integer. */
    record Member(Kind kind, String text, long number) {
    }

    private final String text;
    private final Map<String, Member> members;
    private int at;
    private boolean sawNull;
    private Kind kind;
    private String string;
    private long number;

    private CanonicalForm(String text, Map<String, Member> members) {
        this.text = text;
        this.members = members;
    }

    /** Whether text is one canonical JSON value and nothing else. */
    public static boolean isCanonical(String text) {
        CanonicalForm reader = new CanonicalForm(text, null);
        return reader.value(0) && reader.at == text.length();
    }

    /**
     * The members of a canonical JSON object holding no null anywhere (as receipts are), read in the same pass that
     * checks its form; null when text is not such an object.
     */
    static Map<String, Member> members(String text) {
        if (!text.startsWith("{")) {
            return null;
        }
        CanonicalForm reader = new CanonicalForm(text, new HashMap<>(16));
        if (!reader.value(0) || reader.at != text.length() || reader.sawNull) {
            return null;
        }
        return reader.members;
    }

    /** Nesting deeper than this is refused rather than risking the stack; receipts nest a few levels. */
    private static final int MAX_DEPTH = 200;

    private boolean value(int depth) {
        if (at >= text.length() || depth > MAX_DEPTH) {
            return false;
        }
        char c = text.charAt(at);
        boolean ok;
        switch (c) {
            case '{' -> {
                ok = object(depth);
                kind = Kind.OBJECT;
            }
            case '[' -> {
                ok = array(depth);
                kind = Kind.ARRAY;
            }
            case '"' -> {
                // The decoded text is wanted only for a top-level member's value; elsewhere the form is checked.
                string = string(members != null && depth == 1);
                ok = string != null;
                kind = Kind.STRING;
            }
            case 't' -> {
                ok = literal("true");
                kind = Kind.BOOLEAN;
            }
            case 'f' -> {
                ok = literal("false");
                kind = Kind.BOOLEAN;
            }
            case 'n' -> {
                ok = literal("null");
                kind = Kind.NULL;
                sawNull = true;
            }
            default -> {
                ok = number();
                kind = Kind.INTEGER;
            }
        }
        return ok;
    }

    private boolean object(int depth) {
        at++;
        if (peek('}')) {
            at++;
            return true;
        }
        String previous = null;
        while (true) {
            if (!peek('"')) {
                return false;
            }
            String name = string(true);
            if (name == null || (previous != null && previous.compareTo(name) >= 0)) {
                return false;
            }
            previous = name;
            if (!peek(':')) {
                return false;
            }
            at++;
            if (!value(depth + 1)) {
                return false;
            }
            if (depth == 0 && members != null) {
                members.put(name, new Member(kind, kind == Kind.STRING ? string : null, number));
            }
            if (peek('}')) {
                at++;
                return true;
            }
            if (!peek(',')) {
                return false;
            }
            at++;
        }
    }

    private boolean array(int depth) {
        at++;
        if (peek(']')) {
            at++;
            return true;
        }
        while (true) {
            if (!value(depth + 1)) {
                return false;
            }
            if (peek(']')) {
                at++;
                return true;
            }
            if (!peek(',')) {
                return false;
            }
            at++;
        }
    }

    /** Text standing for a canonical string whose value was not asked for. */
    private static final String CHECKED = "";

    /**
     * Reads a canonical string token: its decoded value when {@code keep} (member names, for their order, and the
     * values asked for), else {@link #CHECKED}; null when not canonical.
     */
    private String string(boolean keep) {
        at++;
        int start = at;
        StringBuilder decoded = null;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"') {
                String value = !keep ? CHECKED : decoded == null ? text.substring(start, at) : decoded.toString();
                at++;
                return value;
            }
            if (c < 0x20) {
                return null;
            }
            if (Character.isHighSurrogate(c)) {
                if (at + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(at + 1))) {
                    return null;
                }
                if (decoded != null) {
                    decoded.append(c).append(text.charAt(at + 1));
                }
                at += 2;
                continue;
            }
            if (Character.isLowSurrogate(c)) {
                return null;
            }
            if (c == '\\') {
                if (decoded == null) {
                    decoded = new StringBuilder(text.length() - start).append(text, start, at);
                }
                char escaped = escape();
                if (escaped == 0xFFFF) {
                    return null;
                }
                decoded.append(escaped);
                continue;
            }
            if (decoded != null) {
                decoded.append(c);
            }
            at++;
        }
        return null;
    }

    /** Reads the escape at {@code at}; the character it stands for, or U+FFFF when it is not the canonical one. */
    private char escape() {
        if (at + 1 >= text.length()) {
            return 0xFFFF;
        }
        char e = text.charAt(at + 1);
        at += 2;
        switch (e) {
            case '"':
                return '"';
            case '\\':
                return '\\';
            case 'b':
                return '\b';
            case 't':
                return '\t';
            case 'n':
                return '\n';
            case 'f':
                return '\f';
            case 'r':
                return '\r';
            case 'u':
                break;
            default:
                return 0xFFFF;
        }
        if (at + 4 > text.length() || text.charAt(at) != '0' || text.charAt(at + 1) != '0') {
            return 0xFFFF;
        }
        int high = lowerHex(text.charAt(at + 2));
        int low = lowerHex(text.charAt(at + 3));
        at += 4;
        if (high < 0 || low < 0 || high > 1) {
            return 0xFFFF;
        }
        char c = (char) (high * 16 + low);
        // These five have a short escape, which is the canonical one.
        return c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r' ? 0xFFFF : c;
    }

    private static int lowerHex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    /** An integer as canonical JSON writes it: 0, or an optional minus and digits without a leading zero. */
    private boolean number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        if (at >= text.length() || !isDigit(text.charAt(at))) {
            return false;
        }
        if (text.charAt(at) == '0') {
            at++;
            if (at - start > 1) {
                return false; // -0
            }
        } else {
            while (at < text.length() && isDigit(text.charAt(at))) {
                at++;
            }
        }
        // Receipts hold integers only, up to 2^53 - 1 in magnitude: beyond that JCS could not keep them exact.
        if (at - start > 17) {
            return false;
        }
        number = Long.parseLong(text, start, at, 10);
        if (Math.abs(number) > Receipt.MAX_SAFE_INTEGER) {
            return false;
        }
        return at >= text.length() || (text.charAt(at) != '.' && text.charAt(at) != 'e' && text.charAt(at) != 'E');
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private boolean literal(String word) {
        if (text.startsWith(word, at)) {
            at += word.length();
            return true;
        }
        return false;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }
}
