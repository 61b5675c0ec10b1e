package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Refusals of {@link Receipt#parse}. Every malformed line but the non-canonical ones is built from a vector
 * receipt and re-canonicalized, so each test breaks exactly one rule.
 */
class ReceiptParseTest {
    private static final String POLICY_ACTIVATED =
            LedgerVectors.receipt("rcpt-test-0000-policy.activated").get("jcs").asText();
    private static final String INITIALIZED =
            LedgerVectors.receipt("rcpt-test-0001-session.initialized").get("jcs").asText();
    private static final String ADMITTED =
            LedgerVectors.receipt("rcpt-test-0002-call.admitted").get("jcs").asText();

    @Test
    void refusesALineWithWhitespaceAdded() {
        String spaced = INITIALIZED.replaceFirst(",", ", ");

        assertRefused(spaced, "not in canonical (RFC 8785) form");
    }

    @Test
    void refusesALineWithMembersReordered() {
        String reordered = "{\"v\":1," + POLICY_ACTIVATED.substring(1, POLICY_ACTIVATED.length() - ",\"v\":1}".length()) + "}";
        assertThat(reordered).hasSameSizeAs(POLICY_ACTIVATED).startsWith("{\"v\":1,\"at\":");

        assertRefused(reordered, "not in canonical (RFC 8785) form");
    }

    @Test
    void refusesALineWithATrailingNewline() {
        assertRefused(POLICY_ACTIVATED + "\n", "not in canonical (RFC 8785) form");
    }

    @Test
    void refusesAnIntegerJcsCannotKeepExact() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        ((ObjectNode) tree.get("body")).put("count", (1L << 53) + 1);

        assertRefused(tree.toString(), "integer at receipt.body.count is outside +/-(2^53-1), which JCS cannot keep exact");
    }

    @Test
    void refusesARequestOnANonCallReceipt() throws IOException {
        ObjectNode tree = tree(INITIALIZED);
        tree.put("request", "req-1");

        assertRefused(Canonical.jcs(tree), "session.initialized receipts carry no 'request'");
    }

    @Test
    void refusesACallReceiptWithoutARequest() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.remove("request");

        assertRefused(Canonical.jcs(tree), "'request' is required on call.admitted");
    }

    @Test
    void refusesANullValue() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        ((ObjectNode) tree.get("body")).putNull("detail");

        assertRefused(Canonical.jcs(tree), "null at receipt.body.detail: absent values are omitted");
    }

    @Test
    void refusesAFloat() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        ((ObjectNode) tree.get("body")).put("cost", 1.5);

        assertRefused(Canonical.jcs(tree), "non-integer number at receipt.body.cost");
    }

    @Test
    void refusesAnUnknownTopLevelField() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.put("note", "x");

        assertRefused(Canonical.jcs(tree), "unknown field 'note'");
    }

    @Test
    void refusesAMissingSig() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.remove("sig");

        assertRefused(Canonical.jcs(tree), "'sig' must be a non-empty string");
    }

    @Test
    void refusesASigThatIsNotSixtyFourBytes() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.put("sig", "AAAA");

        assertRefused(Canonical.jcs(tree), "'sig' must be a 64-byte Ed25519 signature");
    }

    @Test
    void refusesSeqOneWithPrev() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.put("seq", 1);

        assertRefused(Canonical.jcs(tree), "'prev' must be absent when 'seq' is 1");
    }

    @Test
    void refusesSeqTwoWithoutPrev() throws IOException {
        ObjectNode tree = tree(ADMITTED);
        tree.remove("prev");

        assertRefused(Canonical.jcs(tree), "'prev' must be 64 lowercase hex characters when 'seq' is above 1");
    }

    @Test
    void refusesSeqZero() throws IOException {
        ObjectNode tree = tree(INITIALIZED);
        tree.put("seq", 0);

        assertRefused(Canonical.jcs(tree), "'seq' must be an integer of at least 1");
    }

    @Test
    void refusesASessionReceiptWithoutSession() throws IOException {
        ObjectNode tree = tree(INITIALIZED);
        tree.remove("session");

        assertRefused(Canonical.jcs(tree), "'session' must be a non-empty string");
    }

    @Test
    void refusesALedgerWideKindWithASessionField() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("session", "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a");

        assertRefused(Canonical.jcs(tree), "policy.activated receipts carry no 'session', 'seq' or 'prev'");
    }

    @Test
    void refusesAnUnknownKind() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("kind", "policy.deleted");

        assertRefused(Canonical.jcs(tree), "unknown kind 'policy.deleted'");
    }

    @Test
    void refusesVersionTwo() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("v", 2);

        assertRefused(Canonical.jcs(tree), "'v' must be 1");
    }

    @Test
    void refusesATimeWithoutMilliseconds() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("at", "2026-11-30T06:59:00Z");

        assertRefused(Canonical.jcs(tree),
                "'at': time must be UTC with milliseconds, like 2026-11-30T07:01:02.345Z: 2026-11-30T06:59:00Z");
    }

    @Test
    void refusesAnUppercaseKeyId() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("keyId", "ADF8FBA0");

        assertRefused(Canonical.jcs(tree), "'keyId' must be 8 lowercase hex characters");
    }

    @Test
    void refusesAnIdWithASpace() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("id", "rcpt test");

        assertRefused(Canonical.jcs(tree), "'id' must be 1 to 128 visible ASCII characters");
    }

    @Test
    void refusesABodyThatIsNotAnObject() throws IOException {
        ObjectNode tree = tree(POLICY_ACTIVATED);
        tree.put("body", "policy");

        assertRefused(Canonical.jcs(tree), "'body' must be an object");
    }

    @Test
    void refusesAnArray() {
        assertRefused("[]", "not a JSON object");
    }

    private static ObjectNode tree(String line) throws IOException {
        return (ObjectNode) Canonical.parse(line);
    }

    private static void assertRefused(String line, String message) {
        assertThatThrownBy(() -> Receipt.parse(line))
                .isInstanceOf(InvalidReceiptException.class)
                .hasMessage(message);
    }
}
