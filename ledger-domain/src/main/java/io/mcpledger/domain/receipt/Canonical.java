package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The one canonical encoder: RFC 8785 (JCS) through erdtman's implementation. Jackson alone is not
 * JCS (escape case, member order), so every signed or hashed byte goes through here.
 */
public final class Canonical {
    /** A plain Jackson mapper for reading receipts and building trees; never used to produce signed bytes. */
    public static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Reads trees without the mapper's per-call type lookup (every log line's body is read through it). */
    private static final ObjectReader TREES = JSON.reader();

    private Canonical() {
    }

    /** The JCS string of a JSON tree. */
    public static String jcs(JsonNode node) {
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
