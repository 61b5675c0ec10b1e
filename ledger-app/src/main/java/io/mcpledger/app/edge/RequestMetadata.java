package io.mcpledger.app.edge;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * The request metadata headers of MCP revision {@code 2026-07-28}'s Streamable HTTP transport, as a server that reads
 * the body checks them: every request names its method in {@code Mcp-Method}, and {@code tools/call},
 * {@code prompts/get} and {@code resources/read} name their {@code params.name} or {@code params.uri} in
 * {@code Mcp-Name}, plain when it is a safe ASCII field value, else as {@code =?base64?UTF8-BASE64?=}. A header that is
 * missing, malformed or disagrees with the body is refused (HTTP 400, JSON-RPC {@code -32020}): an intermediary that
 * routes or authorizes by the header must never see a call the edge then makes under another name.
 */
final class RequestMetadata {
    private static final String SENTINEL_PREFIX = "=?base64?";
    private static final String SENTINEL_SUFFIX = "?=";
    /** The methods whose {@code Mcp-Name} mirrors a field of {@code params}, and that field. */
    private static final Map<String, String> NAMED = Map.of("tools/call", "name", "prompts/get", "name",
            "resources/read", "uri");

    private RequestMetadata() {
    }

    /**
     * Why a message's {@code Mcp-Method} and {@code Mcp-Name} headers ({@code null} when absent) do not go with its
     * {@code method} and {@code params}, or null when they do. A notification ({@code request} false) is held only to
     * an {@code Mcp-Method} it sends: the revision defines no header rules for notifications.
     */
    static String mismatch(String method, JsonNode params, boolean request, String methodHeader, String nameHeader) {
        if (methodHeader != null && !methodHeader.equals(method)) {
            return "the Mcp-Method header says " + methodHeader + " but the body's method is " + method;
        }
        if (!request) {
            return null;
        }
        if (methodHeader == null) {
            return "the Mcp-Method header is missing: a " + McpEdge.SESSIONLESS + " request names its method ("
                    + method + ") in it";
        }
        String field = NAMED.get(method);
        if (field == null) {
            return null;
        }
        JsonNode value = params.path(field);
        String body = value.isTextual() ? value.asText() : null;
        if (nameHeader == null) {
            return "the Mcp-Name header is missing: a " + method + " request names its params." + field + " in it";
        }
        String name = decode(nameHeader);
        if (name == null) {
            return "the Mcp-Name header is malformed: a value outside visible ASCII, or with leading or trailing"
                    + " spaces, is sent as =?base64?BASE64-OF-UTF8?=";
        }
        if (!name.equals(body)) {
            return "Header mismatch: Mcp-Name header value '" + name + "' does not match body value '"
                    + (body == null ? "(no params." + field + ")" : body) + "'";
        }
        return null;
    }

    /** The value a header carries: its text, or the UTF-8 its Base64 sentinel encodes; null when malformed. */
    static String decode(String header) {
        if (header.startsWith(SENTINEL_PREFIX) && header.endsWith(SENTINEL_SUFFIX)
                && header.length() >= SENTINEL_PREFIX.length() + SENTINEL_SUFFIX.length()) {
            try {
                byte[] bytes = Base64.getDecoder().decode(header.substring(SENTINEL_PREFIX.length(),
                        header.length() - SENTINEL_SUFFIX.length()));
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (IllegalArgumentException | CharacterCodingException e) {
                return null;
            }
        }
        if (header.isEmpty() || !header.equals(header.strip())) {
            return null;
        }
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c != '\t' && (c < 0x20 || c > 0x7e)) {
                return null;
            }
        }
        return header;
    }
}
