package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A draft the parser would refuse is refused before it is signed, so the log never holds an unreadable line. */
class ReceiptDraftTest {
    private static final Instant AT = Instant.parse("2026-11-30T07:00:00Z");
    private static final String SESSION = "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a";

    @Test
    void refusesANullInTheBody() {
        ObjectNode body = Canonical.JSON.createObjectNode().putNull("detail");
        assertThatThrownBy(() -> new ReceiptDraft("r-1", ReceiptKind.SESSION_DELETED, AT, SESSION, 2, "ab".repeat(32), null, body))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("receipt body cannot be signed: null at body.detail: absent values are omitted");
    }

    @Test
    void refusesAFloatInTheBody() {
        ObjectNode body = Canonical.JSON.createObjectNode().put("cost", 0.5);
        assertThatThrownBy(() -> new ReceiptDraft("r-1", ReceiptKind.SESSION_DELETED, AT, SESSION, 2, "ab".repeat(32), null, body))
                .hasMessage("receipt body cannot be signed: non-integer number at body.cost");
    }

    @Test
    void refusesAnUnpairedSurrogateInTheBody() {
        ObjectNode body = Canonical.JSON.createObjectNode().put("detail", "a\ud800b");
        assertThatThrownBy(() -> new ReceiptDraft("r-1", ReceiptKind.SESSION_DELETED, AT, SESSION, 2, "ab".repeat(32), null, body))
                .hasMessage("receipt body cannot be signed: string at body.detail has an unpaired surrogate,"
                        + " which UTF-8 cannot encode");
    }

    @Test
    void refusesAnIdWithASpace() {
        assertThatThrownBy(() -> ReceiptDraft.ledgerWide("r 1", ReceiptKind.POLICY_ACTIVATED, AT, Canonical.JSON.createObjectNode()))
                .hasMessage("receipt id must be 1 to 128 visible ASCII characters: r 1");
    }

    @Test
    void refusesACallReceiptWithoutARequest() {
        assertThatThrownBy(() -> new ReceiptDraft("r-1", ReceiptKind.CALL_ADMITTED, AT, SESSION, 2, "ab".repeat(32), null,
                Canonical.JSON.createObjectNode()))
                .hasMessage("call.admitted needs a request id");
    }

    @Test
    void refusesABrokenChain() {
        assertThatThrownBy(() -> new ReceiptDraft("r-1", ReceiptKind.SESSION_DELETED, AT, SESSION, 2, null, null,
                Canonical.JSON.createObjectNode()))
                .hasMessage("seq 2 with prev null breaks the session chain");
    }
}
