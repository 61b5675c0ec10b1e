package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.SigningKey;
import java.security.SecureRandom;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Call receipts of a client stream (contract section 15: a call made without a session): {@code client} (the
 * tokenRef) instead of {@code session}, with the stream's own {@code seq} and {@code prev}; never both, and only on
 * call receipts.
 */
class ClientReceiptTest {
    private static final String TOKEN_REF = "cd".repeat(32);
    private static final Instant AT = Instant.parse("2026-12-03T10:00:00.123Z");

    private final SigningKey key = SigningKey.generate(new SecureRandom());
    private final ReceiptSigner signer = new ReceiptSigner(key, "ledger.test");

    private static ObjectNode body() {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("tool", "quote");
        return body;
    }

    @Test
    void aClientReceiptIsSignedAndReadBackWithItsStream() throws Exception {
        Receipt first = signer.sign(ReceiptDraft.inClient("rcpt-1", ReceiptKind.CALL_ADMITTED, AT, TOKEN_REF, 1, null,
                "r-1", body()));
        Receipt second = signer.sign(ReceiptDraft.inClient("rcpt-2", ReceiptKind.CALL_OUTCOME, AT, TOKEN_REF, 2,
                first.hash(), "r-1", body()));

        assertThat(first.line()).contains("\"client\":\"" + TOKEN_REF + "\"").doesNotContain("\"session\"");
        for (Receipt r : new Receipt[] {first, second}) {
            Receipt read = Receipt.parse(r.line());
            assertThat(read.client()).isEqualTo(TOKEN_REF);
            assertThat(read.session()).isNull();
            assertThat(read.seq()).isEqualTo(r.seq());
            assertThat(Receipt.parseTree(r.line()).client()).isEqualTo(TOKEN_REF);
            assertThat(new ReceiptVerifier(key.publicKey(), signer.keyId()).check(read)).isEmpty();
        }
        assertThat(Receipt.parse(second.line()).prev()).isEqualTo(first.hash());
    }

    @Test
    void aDraftBelongsToOneStreamAndOnlyCallsToAClient() {
        assertThatThrownBy(() -> new ReceiptDraft("rcpt-1", ReceiptKind.CALL_ADMITTED, AT, "mcp-s", 1, null, "r-1",
                body(), TOKEN_REF)).hasMessageContaining("a receipt belongs to one stream");
        assertThatThrownBy(() -> ReceiptDraft.inClient("rcpt-1", ReceiptKind.SESSION_DELETED, AT, TOKEN_REF, 1, null,
                null, body())).hasMessageContaining("only call receipts belong to a client stream");
        assertThatThrownBy(() -> ReceiptDraft.inClient("rcpt-1", ReceiptKind.CALL_ADMITTED, AT, "CD".repeat(32), 1,
                null, "r-1", body())).hasMessageContaining("64 lowercase hex");
        assertThatThrownBy(() -> ReceiptDraft.inClient("rcpt-1", ReceiptKind.CALL_ADMITTED, AT, TOKEN_REF, 2, null,
                "r-1", body())).hasMessageContaining("breaks the client chain");
    }

    @Test
    void aLineWithBothStreamsOrAClientOnAnotherKindIsRefusedByBothReadings() {
        Receipt call = signer.sign(ReceiptDraft.inClient("rcpt-1", ReceiptKind.CALL_ADMITTED, AT, TOKEN_REF, 1, null,
                "r-1", body()));
        ObjectNode both = call.toJson();
        both.put("session", "mcp-s");
        assertRefused(both, "never both");

        ObjectNode deleted = call.toJson();
        deleted.put("kind", "session.deleted");
        deleted.remove("request");
        assertRefused(deleted, "carry no 'client'");

        ObjectNode policy = call.toJson();
        policy.put("kind", "policy.activated");
        policy.remove("request");
        assertRefused(policy, "carry no 'client'");

        ObjectNode upper = call.toJson();
        upper.put("client", "CD".repeat(32));
        assertRefused(upper, "64 lowercase hex");

        ObjectNode noSeq = call.toJson();
        noSeq.remove("seq");
        assertRefused(noSeq, "'seq'");
    }

    private static void assertRefused(ObjectNode json, String why) {
        String line = Canonical.jcs(json);
        assertThat(Receipt.fromMembers(line)).as("the fast reading refuses %s", line).isNull();
        assertThatThrownBy(() -> Receipt.parseTree(line)).isInstanceOf(InvalidReceiptException.class)
                .hasMessageContaining(why);
    }
}
