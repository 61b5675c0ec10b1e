package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.SigningKey;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A receipt reads its body, signature and signing input straight from its line's text. Bodies that nest the top
 * level's own member names ("id", "sig", "body", "v") and strings that spell their delimiters must not fool it.
 */
class ReceiptLineFieldsTest {
    private static final SigningKey SIGNER_KEY = SigningKey.fromSeed(new byte[32]);
    private static final ReceiptSigner SIGNER = new ReceiptSigner(SIGNER_KEY, "ledger.test/x");

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
                assertThat(parsed.bodyString(name)).as(name)
                        .isEqualTo(b.path(name).isTextual() ? b.path(name).textValue() : null);
                for (String inner : List.of("id", "body", "sig", "absent")) {
                    JsonNode value = b.path(name).path(inner);
                    assertThat(parsed.bodyString(name, inner)).as(name + "." + inner)
                            .isEqualTo(value.isTextual() ? value.textValue() : null);
                }
            }
            assertThat(parsed.sig()).isEqualTo(tree.path("sig").asText());
            assertThat(parsed.keyId()).isEqualTo(tree.path("keyId").asText());
            assertThat(parsed.ledger()).isEqualTo("ledger.test/x");
            assertThat(parsed.signingInput()).isEqualTo(ReceiptSigner.signingInput(unsigned));
        }
    }

    /**
     * A signed line is the JCS of the signed receipt and verifies, in each form: in a session, first of one, of a
     * client, ledger-wide.
     */
    @Test
    void theSignedLineIsCanonicalInEveryFormOfReceipt() throws Exception {
        Instant at = Instant.parse("2026-11-30T07:00:00.123Z");
        ObjectNode b = body("{\"note\":\",\\\"sig\\\":\\\"x\\\",\\\"v\\\":1}\",\"zz\":\"\u00e9\u2028\",\"v\":2}");
        List<ReceiptDraft> drafts = List.of(
                new ReceiptDraft("r-1", ReceiptKind.CALL_ADMITTED, at, "s-1", 2, "ab".repeat(32), "q-1", b),
                new ReceiptDraft("r-2", ReceiptKind.SESSION_INITIALIZED, at, "s-1", 1, null, null, b),
                ReceiptDraft.inClient("r-3", ReceiptKind.CALL_ADMITTED, at, "c".repeat(64), 1, null, "q-1", b),
                ReceiptDraft.ledgerWide("r-4", ReceiptKind.POLICY_ACTIVATED, at, body("{}")));
        for (ReceiptDraft draft : drafts) {
            Receipt signed = SIGNER.sign(draft);

            assertThat(signed.line()).isEqualTo(Canonical.jcs(Canonical.parse(signed.line())));
            assertThat(SIGNER_KEY.publicKey().verify(signed.signingInput(), Base64.getDecoder().decode(signed.sig())))
                    .as(signed.line()).isTrue();
        }
    }
}
