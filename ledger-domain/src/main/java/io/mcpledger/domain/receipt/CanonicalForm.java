package io.mcpledger.domain.receipt;

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
 *
 * <p>Nothing is copied out of the text while it is checked: strings are located, and names compared where they
 * stand; only a string with an escape is decoded, and only when its value is asked for.
 */
public final class CanonicalForm {
    /** What a top-level member's value is. */
    enum Kind { STRING, INTEGER, OBJECT, ARRAY, BOOLEAN, NULL }

    /**
     * The top-level members of a canonical object, by the index of their name in the sorted table they were read
     * with: each one's kind, where its value stands in the text (a string's without its quotes) and an integer's value.
     */
    static final class Members {
        private final String text;
        private final Kind[] kinds;
        /** Where each value starts and ends, two by two. */
        private final int[] bounds;
        /** A string's decoded value when it holds an escape; null otherwise, the text between its quotes being it. */
        private String[] decoded;
        private final long[] numbers;

        private Members(String text, int size) {
            this.text = text;
            this.kinds = new Kind[size];
            this.bounds = new int[2 * size];
            this.numbers = new long[size];
        }

        private void set(int index, Kind kind, int start, int end, String decodedText, long number) {
            kinds[index] = kind;
            bounds[2 * index] = start;
            bounds[2 * index + 1] = end;
            numbers[index] = number;
            if (decodedText != null) {
                if (decoded == null) {
                    decoded = new String[kinds.length];
                }
                decoded[index] = decodedText;
            }
        }

        /** The kind of the member with name {@code index}, or null when the object has no such member. */
        Kind kind(int index) {
            return kinds[index];
        }

        boolean has(int index) {
            return kinds[index] != null;
        }

        long number(int index) {
            return numbers[index];
        }

        /** Where the value starts in the text: a string's first character after its quote, else its first character. */
        int start(int index) {
            return bounds[2 * index];
        }

        /** Where the value ends (exclusive): a string's closing quote. */
        int end(int index) {
            return bounds[2 * index + 1];
        }

        /** A string member's value. */
        String text(int index) {
            return literal(index) ? text.substring(start(index), end(index)) : decoded[index];
        }

        /** True when a string member's value is the text between its quotes, as is, without escapes. */
        boolean literal(int index) {
            return decoded == null || decoded[index] == null;
        }
    }

    private final String text;
    /** Sorted names of the top-level members to hand over, or null when only the form is checked. */
    private final String[] names;
    private final Members members;
    /** Where in {@link #names} the search for the next top-level name starts. */
    private int nextName;
    private int at;
    private boolean sawNull;
    private Kind kind;
    private long number;
    /** Of the last string read: where its characters start and end (its quotes excluded), and whether it escapes any. */
    private int stringStart;
    private int stringEnd;
    private boolean escaped;
    /** Where the value {@link #member} found starts. */
    private int valueStart;

    private CanonicalForm(String text, String[] names) {
        this.text = text;
        this.names = names;
        this.members = names == null ? null : new Members(text, names.length);
    }

    /** Whether text is one canonical JSON value and nothing else. */
    public static boolean isCanonical(String text) {
        CanonicalForm reader = new CanonicalForm(text, null);
        return reader.value(0) && reader.at == text.length();
    }

    /**
     * The members of a canonical JSON object holding no null anywhere (as receipts are), read in the same pass that
     * checks its form; null when text is not such an object or has a top-level member not named in {@code names}
     * (sorted in ascending order).
     */
    static Members members(String text, String[] names) {
        if (!text.startsWith("{")) {
            return null;
        }
        CanonicalForm reader = new CanonicalForm(text, names);
        if (!reader.value(0) || reader.at != text.length() || reader.sawNull) {
            return null;
        }
        return reader.members;
    }

    /**
     * The value of member {@code name} of the object at {@code objectStart} of text already known to be canonical:
     * a string's decoded value, an integer's or a literal's spelling, and "" when the member is absent or holds an
     * object or an array.
     */
    static String memberText(String text, int objectStart, String name) {
        CanonicalForm reader = member(text, objectStart, name);
        if (reader == null) {
            return "";
        }
        return switch (reader.kind) {
            case STRING -> reader.stringValue();
            case OBJECT, ARRAY -> "";
            default -> text.substring(reader.valueStart, reader.at);
        };
    }

    /**
     * The value of member {@code name} of the canonical object that starts at {@code objectStart} when it is a string
     * (decoded), else null: when the object has no such member, or its value is not a string.
     */
    static String memberString(String text, int objectStart, String name) {
        CanonicalForm reader = member(text, objectStart, name);
        return reader == null || reader.kind != Kind.STRING ? null : reader.stringValue();
    }

    /**
     * Where the value of member {@code name} of the canonical object that starts at {@code objectStart} starts when it
     * is an object, else -1: when the object has no such member, or its value is not an object.
     */
    static int memberObject(String text, int objectStart, String name) {
        CanonicalForm reader = member(text, objectStart, name);
        return reader == null || reader.kind != Kind.OBJECT ? -1 : reader.valueStart;
    }

    /**
     * Reads the members of the canonical object that starts at {@code objectStart} up to {@code name}: a reader
     * standing after that member's value, its {@code kind} and {@code valueStart} set (a string's bounds too), or null
     * when the object has no such member.
     */
    private static CanonicalForm member(String text, int objectStart, String name) {
        CanonicalForm reader = new CanonicalForm(text, null);
        reader.at = objectStart + 1;
        if (reader.peek('}')) {
            return null;
        }
        while (reader.peek('"') && reader.string()) {
            int order = reader.escaped ? reader.decode(reader.stringStart, reader.stringEnd).compareTo(name)
                    : compare(text, reader.stringStart, reader.stringEnd, name, 0, name.length());
            reader.at++; // the colon
            int valueStart = reader.at;
            if (!reader.value(1)) {
                break;
            }
            if (order == 0) {
                reader.valueStart = valueStart;
                return reader;
            }
            if (order > 0 || !reader.peek(',')) {
                return null; // members are in order: the name would have come by now
            }
            reader.at++;
        }
        throw new IllegalArgumentException("not a canonical object at " + objectStart);
    }

    /** The string just read, decoded. */
    private String stringValue() {
        return escaped ? decode(stringStart, stringEnd) : text.substring(stringStart, stringEnd);
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
                ok = string();
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
        int previousStart = -1;
        int previousEnd = -1;
        boolean previousEscaped = false;
        while (true) {
            if (!peek('"') || !string()) {
                return false;
            }
            int nameStart = stringStart;
            int nameEnd = stringEnd;
            boolean nameEscaped = escaped;
            if (previousStart >= 0 && compareNames(previousStart, previousEnd, previousEscaped, nameStart, nameEnd,
                    nameEscaped) >= 0) {
                return false;
            }
            previousStart = nameStart;
            previousEnd = nameEnd;
            previousEscaped = nameEscaped;
            int index = -1;
            if (depth == 0 && members != null) {
                index = nameIndex(nameStart, nameEnd, nameEscaped);
                if (index < 0) {
                    return false;
                }
            }
            if (!peek(':')) {
                return false;
            }
            at++;
            int valueStart = at;
            if (!value(depth + 1)) {
                return false;
            }
            if (index >= 0) {
                if (kind == Kind.STRING) {
                    members.set(index, kind, stringStart, stringEnd, escaped ? decode(stringStart, stringEnd) : null, 0);
                } else {
                    members.set(index, kind, valueStart, at, null, number);
                }
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

    /** Compares two names by their decoded UTF-16 code units; where neither escapes anything, as they stand. */
    private int compareNames(int aStart, int aEnd, boolean aEscaped, int bStart, int bEnd, boolean bEscaped) {
        if (!aEscaped && !bEscaped) {
            return compare(text, aStart, aEnd, text, bStart, bEnd);
        }
        return decode(aStart, aEnd).compareTo(decode(bStart, bEnd));
    }

    /**
     * The index of a name in {@link #names}, or -1. The object's names come in ascending order, as the table's do, so
     * the search goes on from where the last one was found.
     */
    private int nameIndex(int start, int end, boolean nameEscaped) {
        String decodedName = nameEscaped ? decode(start, end) : null;
        while (nextName < names.length) {
            int order = decodedName != null ? decodedName.compareTo(names[nextName])
                    : compare(text, start, end, names[nextName], 0, names[nextName].length());
            if (order < 0) {
                return -1;
            }
            nextName++;
            if (order == 0) {
                return nextName - 1;
            }
        }
        return -1;
    }

    /** Compares a[aStart, aEnd) with b[bStart, bEnd) by UTF-16 code units, as String.compareTo does. */
    private static int compare(String a, int aStart, int aEnd, String b, int bStart, int bEnd) {
        int length = Math.min(aEnd - aStart, bEnd - bStart);
        for (int i = 0; i < length; i++) {
            char x = a.charAt(aStart + i);
            char y = b.charAt(bStart + i);
            if (x != y) {
                return x - y;
            }
        }
        return (aEnd - aStart) - (bEnd - bStart);
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

    /**
     * Reads a string token at {@code at} and checks that it is canonical; sets {@link #stringStart},
     * {@link #stringEnd} and {@link #escaped}.
     */
    private boolean string() {
        at++;
        stringStart = at;
        escaped = false;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"') {
                stringEnd = at;
                at++;
                return true;
            }
            if (c < 0x20) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (at + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(at + 1))) {
                    return false;
                }
                at += 2;
                continue;
            }
            if (Character.isLowSurrogate(c)) {
                return false;
            }
            if (c == '\\') {
                escaped = true;
                if (escape() == 0xFFFF) {
                    return false;
                }
                continue;
            }
            at++;
        }
        return false;
    }

    /** The value of the checked string whose characters are text[start, end). */
    private String decode(int start, int end) {
        StringBuilder decoded = new StringBuilder(end - start);
        int saved = at;
        at = start;
        while (at < end) {
            char c = text.charAt(at);
            if (c == '\\') {
                decoded.append(escape());
            } else {
                decoded.append(c);
                at++;
            }
        }
        at = saved;
        return decoded.toString();
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
