package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.SigningKey;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A receipt reads its body, signature and signing input straight from its line's text. Bodies that nest the top
 * level's own member names ("id", "sig", "body", "v") and strings that spell their delimiters must not fool it.
 */
class ReceiptLineFieldsTest {
    private static final ReceiptSigner SIGNER = new ReceiptSigner(SigningKey.fromSeed(new byte[32]), "ledger.test/x");

    private static ObjectNode body(String json) throws Exception {
        return (ObjectNode) Canonical.parse(json);
    }

    @Test
    void bodiesThatLookLikeTheTopLevelAreReadWhole() throws Exception {
        List<ObjectNode> bodies = List.of(
                body("{}"),
                body("{\"id\":\"x\",\"sig\":\"y\"}"),
                body("{\"a\":{\"id\":\"inner\"},\"b\":{\"body\":{},\"id\":\"z\"},\"v\":1}"),
                body("{\"note\":\"},\\\"id\\\":\\\" and ,\\\"sig\\\":\\\" and \\\",\\\"v\\\":1}\"}"),
                body("{\"list\":[{\"id\":\"1\"},{\"sig\":\"2\",\"v\":1}],\"z\":{\"id\":{\"id\":\"deep\"}}}"));
        for (ObjectNode b : bodies) {
            Receipt signed = SIGNER.sign(new ReceiptDraft("r-\"},\"id\":\"", ReceiptKind.CALL_ADMITTED,
                    Instant.parse("2026-11-30T07:00:00.123Z"), "s-,\"sig\":\"", 2, "ab".repeat(32),
                    "q-},\"id\":\"", b));
            Receipt parsed = Receipt.parse(signed.line());
            JsonNode tree = Canonical.parse(signed.line());
            ObjectNode unsigned = ((ObjectNode) tree).deepCopy();
            unsigned.remove("sig");

            assertThat(parsed.body()).as(signed.line()).isEqualTo(b);
            for (String name : List.of("id", "sig", "note", "list", "a", "z", "v", "absent")) {
                assertThat(parsed.bodyText(name)).as(name).isEqualTo(b.path(name).asText());
            }
            assertThat(parsed.sig()).isEqualTo(tree.path("sig").asText());
            assertThat(parsed.keyId()).isEqualTo(tree.path("keyId").asText());
            assertThat(parsed.ledger()).isEqualTo("ledger.test/x");
            assertThat(parsed.signingInput()).isEqualTo(ReceiptSigner.signingInput(unsigned));
        }
    }
}
