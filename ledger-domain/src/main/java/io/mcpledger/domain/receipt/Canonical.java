package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The one canonical encoder: RFC 8785 (JCS). Jackson alone is not JCS (escape case, member order), so every signed or
 * hashed byte goes through here. Trees of the values the ledger writes (strings, integers within 2^53 - 1, booleans,
 * null, objects, arrays) are written straight from the tree; anything else (a fraction, say) goes through erdtman's
 * implementation, the reference, which a property test holds the direct writing to on random trees.
 */
public final class Canonical {
    /** A plain Jackson mapper for reading receipts and building trees; never used to produce signed bytes. */
    public static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Reads trees without the mapper's per-call type lookup (every log line's body is read through it). */
    private static final ObjectReader TREES = JSON.reader();

    /** The capacity of each thread's builder, about two receipts. */
    private static final int BUILDER_CAPACITY = 4096;
    /** A builder that grew past this (a large policy document) is not kept. */
    private static final int KEPT_CAPACITY = 64 * 1024;
    /**
     * Each thread's builder, kept between calls: a new one of 256 characters grew four times, each a copy, for a
     * receipt of 2 to 3 KB, on every receipt signed and every session row the projections write.
     */
    private static final ThreadLocal<StringBuilder> BUILDERS =
            ThreadLocal.withInitial(() -> new StringBuilder(BUILDER_CAPACITY));

    private Canonical() {
    }

    /** The JCS string of a JSON tree. */
    public static String jcs(JsonNode node) {
        StringBuilder out = BUILDERS.get();
        out.setLength(0);
        try {
            return write(node, out) ? out.toString() : referenceJcs(node);
        } finally {
            if (out.capacity() > KEPT_CAPACITY) {
                BUILDERS.remove();
            }
        }
    }

    /**
     * Writes the JCS of a tree that holds only values whose canonical spelling needs no number formatting; false, with
     * {@code out} then unusable, for anything else.
     */
    private static boolean write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                String[] names = new String[node.size()];
                Iterator<String> it = node.fieldNames();
                for (int i = 0; i < names.length; i++) {
                    names[i] = it.next();
                }
                // String's order is that of UTF-16 code units, as RFC 8785 sorts member names.
                Arrays.sort(names);
                out.append('{');
                for (int i = 0; i < names.length; i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    if (!string(names[i], out)) {
                        return false;
                    }
                    out.append(':');
                    if (!write(node.get(names[i]), out)) {
                        return false;
                    }
                }
                out.append('}');
                return true;
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    if (!write(node.get(i), out)) {
                        return false;
                    }
                }
                out.append(']');
                return true;
            }
            case STRING -> {
                return string(node.textValue(), out);
            }
            case NUMBER -> {
                if (!node.isIntegralNumber() || !node.canConvertToLong()
                        || Math.abs(node.longValue()) > Receipt.MAX_SAFE_INTEGER) {
                    return false;
                }
                out.append(node.longValue());
                return true;
            }
            case BOOLEAN -> {
                out.append(node.booleanValue());
                return true;
            }
            case NULL -> {
                out.append("null");
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** A string as JCS writes it; false for one with an unpaired surrogate, whose spelling is left to the reference. */
    private static boolean string(String s, StringBuilder out) {
        // Most strings (ids, hashes, names, times) need no escape: they are appended whole, not a character at a time
        // (which took about a quarter of the projection flush's samples at saturation). Otherwise the run before the
        // first character that needs one is appended whole, and the rest a character at a time.
        int plain = 0;
        while (plain < s.length() && writtenAsIs(s.charAt(plain))) {
            plain++;
        }
        if (plain == s.length()) {
            out.append('"').append(s).append('"');
            return true;
        }
        out.append('"').append(s, 0, plain);
        for (int i = plain; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else if (Character.isSurrogate(c)) {
                        if (!Character.isHighSurrogate(c) || i + 1 >= s.length()
                                || !Character.isLowSurrogate(s.charAt(i + 1))) {
                            return false;
                        }
                        out.append(c).append(s.charAt(++i));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
        return true;
    }

    /** Whether JCS writes {@code c} as it is: not a control character, a quote, a backslash or a surrogate. */
    private static boolean writtenAsIs(char c) {
        return c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** The JCS string of a JSON tree through erdtman's implementation: the reference the direct writing is held to. */
    static String referenceJcs(JsonNode node) {
        try {
            return new JsonCanonicalizer(JSON.writeValueAsString(node)).getEncodedString();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tree cannot be serialized: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("tree is not canonicalizable JSON: " + e.getMessage(), e);
        }
    }

    /** The JCS UTF-8 bytes of a JSON tree. */
    public static byte[] jcsBytes(JsonNode node) {
        return jcs(node).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses JSON text into a tree. */
    public static JsonNode parse(String json) throws IOException {
        return TREES.readTree(json);
    }
}
