package io.mcpledger.app.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.JsonErrors;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.JsonRpcId;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A request's JSON body, read strictly (contract section 11): malformed JSON, duplicate or unknown members,
 * wrong types and out-of-range values are refused with {@code 400} naming the field, before any command
 * is sent, so bad input never appends.
 */
final class RequestBody {
    /** Bodies larger than this are {@code 413 payload_too_large}. */
    static final int MAX_BYTES = 64 * 1024;
    static final String TOO_LARGE = "the body is larger than " + MAX_BYTES + " bytes";
    static final int MAX_CLIENT_TEXT = 256;
    static final int MAX_NOTE = 4096;

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final ObjectNode node;
    private final String prefix;

    private RequestBody(ObjectNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    /**
     * Refuses a missing or empty body ({@code invalid_json}, saying what to send instead) and one over the limit.
     * Controllers bind the body as {@code @Body @Bindable(defaultValue = "") byte[]}, so a missing body arrives here
     * as an empty array rather than through Micronaut's own refusal ({@code @Nullable} would do the same, but
     * Micronaut's processor reads {@code byte[]} as a primitive and warns at every build).
     */
    static void requireBody(byte[] bytes, String whatToSend) {
        if (bytes == null || bytes.length == 0) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "the body is empty; " + whatToSend);
        }
        if (bytes.length > MAX_BYTES) {
            throw new LedgerException(ErrorCode.PAYLOAD_TOO_LARGE, TOO_LARGE);
        }
    }

    /** Parses a JSON object whose members are all among {@code allowed}. */
    static RequestBody parse(byte[] bytes, Set<String> allowed) {
        requireBody(bytes, "send a JSON object");
        Utf8.require(bytes);
        JsonNode tree;
        try (JsonParser parser = STRICT.createParser(bytes)) {
            tree = STRICT.readTree(parser);
        } catch (JsonProcessingException e) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "malformed JSON" + JsonErrors.describe(e));
        } catch (IOException e) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "malformed JSON: " + e.getMessage());
        }
        if (tree == null || tree.isMissingNode()) {
            throw new LedgerException(ErrorCode.INVALID_JSON, "the body is empty; send a JSON object");
        }
        if (!tree.isObject()) {
            throw invalid("the body must be a JSON object");
        }
        RequestBody body = new RequestBody((ObjectNode) tree, "");
        body.onlyMembers(allowed);
        return body;
    }

    /** Like {@link #parse}, for requests whose body may be left out: no body reads as {@code {}}. */
    static RequestBody parseOptional(byte[] bytes, Set<String> allowed) {
        if (bytes == null || bytes.length == 0) {
            return new RequestBody(STRICT.createObjectNode(), "");
        }
        return parse(bytes, allowed);
    }

    /** A required identifier: visible ASCII (0x21-0x7E), 1 to 256 characters. */
    String identifier(String field) {
        return requireIdentifier("field " + name(field), string(field, true));
    }

    /** Any text of at most {@code maxChars} characters (Unicode code points) that UTF-8 can carry. */
    String text(String field, int maxChars, boolean required) {
        String value = string(field, required);
        if (value != null && !Identifiers.isWellFormedText(value)) {
            throw invalid("field " + name(field) + " is not valid Unicode text: it has an unpaired surrogate (\\ud800-\\udfff)");
        }
        if (value != null && value.codePointCount(0, value.length()) > maxChars) {
            throw invalid("field " + name(field) + " must be at most " + maxChars + " characters");
        }
        return value;
    }

    /**
     * A JSON-RPC id as the client sent it (contract section 4): a string of at most {@code maxChars} characters, or an
     * integer of at most 2^53 - 1 in magnitude, written as a JSON integer (no fraction, no exponent); null when absent.
     */
    JsonRpcId jsonRpcId(String field, int maxChars) {
        JsonNode value = node.get(field);
        if (value == null) {
            return null;
        }
        if (value.isTextual()) {
            return JsonRpcId.text(text(field, maxChars, false));
        }
        if (!value.isIntegralNumber()) {
            throw invalid("field " + name(field) + " must be a string or an integer, got " + describe(value));
        }
        if (!Receipt.isSafeInteger(value)) {
            throw invalid("field " + name(field) + " must be an integer of at most 2^53 - 1 (9007199254740991) in"
                    + " magnitude, got " + value);
        }
        return JsonRpcId.integer(value.longValue());
    }

    /** Lowercase hex of exactly {@code chars} characters. */
    String hex(String field, int chars, boolean required) {
        String value = string(field, required);
        if (value != null && !Hex.isLowerHex(value, chars)) {
            throw invalid("field " + name(field) + " must be " + chars + " lowercase hex characters");
        }
        return value;
    }

    /** A string whose meaning the aggregate decides (a protocol version): any well-formed text. */
    String text(String field, boolean required) {
        return text(field, Integer.MAX_VALUE, required);
    }

    /** One of a fixed set of strings. */
    String oneOf(String field, List<String> values, boolean required) {
        String value = string(field, required);
        if (value != null && !values.contains(value)) {
            throw invalid("field " + name(field) + " must be one of " + String.join(", ", values) + ", got \"" + value + "\"");
        }
        return value;
    }

    /** A nested object whose members are among {@code allowed}, or null when absent. */
    RequestBody object(String field, Set<String> allowed) {
        JsonNode value = node.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            throw invalid("field " + name(field) + " must be a JSON object");
        }
        RequestBody nested = new RequestBody((ObjectNode) value, name(field) + ".");
        nested.onlyMembers(allowed);
        return nested;
    }

    private String string(String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null) {
            if (required) {
                throw invalid("field " + name(field) + " is required");
            }
            return null;
        }
        if (!value.isTextual()) {
            throw invalid("field " + name(field) + " must be a string, got " + describe(value));
        }
        return value.textValue();
    }

    private void onlyMembers(Set<String> allowed) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String member = names.next();
            if (!allowed.contains(member)) {
                throw invalid("field " + name(member) + " is not part of this request; expected "
                        + String.join(", ", allowed.stream().sorted().toList()));
            }
        }
    }

    private String name(String field) {
        return prefix + field;
    }

    private static String describe(JsonNode value) {
        return switch (value.getNodeType()) {
            case NULL -> "null";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> value.getNodeType().name().toLowerCase();
        };
    }

    /** Checks a path or header value that must be an identifier, naming it in the refusal. */
    static String requireIdentifier(String what, String value) {
        if (!Identifiers.isIdentifier(value)) {
            throw invalid(what + " must be 1 to " + Identifiers.MAX_LENGTH + " visible ASCII characters (0x21-0x7E)");
        }
        return value;
    }

    static LedgerException invalid(String message) {
        return new LedgerException(ErrorCode.INVALID_REQUEST, message);
    }
}
