package io.mcpledger.app.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Revision 2026-07-28's request metadata headers, checked against the body as the edge reads it. */
class RequestMetadataTest {
    private static JsonNode params(String json) throws IOException {
        return Canonical.parse(json);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "quote | quote",
            "get weather | get weather",
            // The revision's encoding examples.
            "=?base64?SGVsbG8sIOS4lueVjA==?= | Hello, 世界",
            "=?base64?IHBhZGRlZCA=?= | ' padded '",
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?= | =?base64?literal?="})
    void aHeaderCarriesItsTextOrTheUtf8ItsSentinelEncodes(String header, String value) {
        assertThat(RequestMetadata.decode(header)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "=?base64?not base64!?=",
            // 0xC3 0x28: not UTF-8.
            "=?base64?wyg=?=",
            "caf\u00e9",
            "line\u0001break"})
    void aMalformedHeaderCarriesNothing(String header) {
        assertThat(RequestMetadata.decode(header)).isNull();
    }

    @Test
    void anEmptyHeaderCarriesNothing() {
        assertThat(RequestMetadata.decode("")).isNull();
    }

    @Test
    void aToolsCallWhoseHeadersNameItsMethodAndToolPasses() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"quote\"}"), true, "tools/call", "quote"))
                .isNull();
        assertThat(RequestMetadata.mismatch("resources/read", params("{\"uri\":\"file:///a b\"}"), true, "resources/read",
                "file:///a b")).isNull();
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"prix \u00e9t\u00e9\"}"), true, "tools/call",
                "=?base64?cHJpeCDDqXTDqQ==?=")).isNull();
        assertThat(RequestMetadata.mismatch("tools/list", params("{}"), true, "tools/list", null)).isNull();
    }

    @Test
    void aNotificationIsHeldOnlyToTheMcpMethodItSends() throws IOException {
        assertThat(RequestMetadata.mismatch("notifications/x", params("{}"), false, null, null)).isNull();
        assertThat(RequestMetadata.mismatch("notifications/x", params("{}"), false, "notifications/y", null))
                .isEqualTo("the Mcp-Method header says notifications/y but the body's method is notifications/x");
    }

    @Test
    void anMcpMethodThatIsNotTheBodysIsAMismatch() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"quote\"}"), true, "tools/list", "quote"))
                .isEqualTo("the Mcp-Method header says tools/list but the body's method is tools/call");
    }

    @Test
    void aMissingMcpMethodIsRefused() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/list", params("{}"), true, null, null))
                .isEqualTo("the Mcp-Method header is missing: a 2026-07-28 request names its method (tools/list) in it");
    }

    @Test
    void aMissingMcpNameIsRefusedForTheMethodsThatMirrorAName() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"quote\"}"), true, "tools/call", null))
                .isEqualTo("the Mcp-Name header is missing: a tools/call request names its params.name in it");
        assertThat(RequestMetadata.mismatch("resources/read", params("{\"uri\":\"x\"}"), true, "resources/read", null))
                .isEqualTo("the Mcp-Name header is missing: a resources/read request names its params.uri in it");
        assertThat(RequestMetadata.mismatch("prompts/get", params("{\"name\":\"p\"}"), true, "prompts/get", null))
                .isNotNull();
    }

    @Test
    void anMcpNameThatIsNotTheBodysIsAMismatch() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"refund\"}"), true, "tools/call", "quote"))
                .isEqualTo("Header mismatch: Mcp-Name header value 'quote' does not match body value 'refund'");
        assertThat(RequestMetadata.mismatch("tools/call", params("{}"), true, "tools/call", "quote"))
                .isEqualTo("Header mismatch: Mcp-Name header value 'quote' does not match body value"
                        + " '(no params.name)'");
        // Values are case-sensitive.
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"Quote\"}"), true, "tools/call", "quote"))
                .isNotNull();
    }

    @Test
    void aMalformedMcpNameIsRefused() throws IOException {
        assertThat(RequestMetadata.mismatch("tools/call", params("{\"name\":\"quote\"}"), true, "tools/call",
                "=?base64?***?=")).startsWith("the Mcp-Name header is malformed");
    }
}
