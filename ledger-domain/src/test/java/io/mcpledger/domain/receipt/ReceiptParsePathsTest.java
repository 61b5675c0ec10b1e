package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Receipt#parse} reads a line the fast way ({@link CanonicalForm}'s members) and falls back to the reference
 * reading (a Jackson tree) to say what is wrong. Both must agree on every line: the same receipts accepted, with the
 * same fields, and the same refused. Each vector receipt is tried with every field removed, nulled, or given a value of
 * each JSON type, and with a few values that are right in type but wrong in content.
 */
class ReceiptParsePathsTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static List<JsonNode> values() {
        ObjectNode nested = NODES.objectNode();
        nested.putNull("x");
        return List.of(NODES.nullNode(), NODES.textNode(""), NODES.textNode("x"), NODES.textNode("1"),
                NODES.textNode("ab".repeat(32)), NODES.textNode("12345678"), NODES.numberNode(12345678),
                NODES.numberNode(0), NODES.numberNode(1), NODES.numberNode(2), NODES.numberNode(-1),
                NODES.booleanNode(true), NODES.objectNode(), nested, NODES.arrayNode(),
                NODES.textNode("2026-11-30T07:00:00Z"), NODES.textNode("call.admitted"),
                NODES.textNode("session.initialized"), NODES.textNode("policy.activated"),
                NODES.textNode("A".repeat(129)), NODES.textNode("has space"), NODES.textNode("AAAA"));
    }

    private static List<String> variants() {
        List<String> lines = new ArrayList<>();
        List<String> fields = List.of("v", "id", "kind", "at", "ledger", "session", "client", "seq", "prev", "request",
                "body", "keyId", "sig", "extra");
        List<ObjectNode> bases = new ArrayList<>();
        for (JsonNode vector : LedgerVectors.receipts()) {
            ObjectNode receipt = (ObjectNode) vector.get("receipt");
            lines.add(vector.get("jcs").asText());
            bases.add(receipt);
            if (receipt.path("kind").asText().startsWith("call.")) {
                // The same call in a client stream (a call made without a session): client instead of session.
                ObjectNode inClient = receipt.deepCopy();
                inClient.remove("session");
                inClient.put("client", "cd".repeat(32));
                bases.add(inClient);
            }
        }
        for (ObjectNode receipt : bases) {
            lines.add(Canonical.jcs(receipt));
            for (String field : fields) {
                ObjectNode removed = receipt.deepCopy();
                removed.remove(field);
                lines.add(Canonical.jcs(removed));
                for (JsonNode value : values()) {
                    ObjectNode changed = receipt.deepCopy();
                    changed.set(field, value);
                    lines.add(Canonical.jcs(changed));
                }
            }
        }
        return lines;
    }

    @Test
    void theFastReadingAndTheReferenceAgreeOnEveryLine() {
        int accepted = 0;
        int refused = 0;
        for (String line : variants()) {
            Receipt fast = Receipt.fromMembers(line);
            Receipt reference;
            try {
                reference = Receipt.parseTree(line);
            } catch (InvalidReceiptException e) {
                assertThat(fast).as("refused by the reference (%s): %s", e.getMessage(), line).isNull();
                refused++;
                continue;
            }
            assertThat(fast).as("accepted by the reference: %s", line).isNotNull();
            assertThat(fast.id()).isEqualTo(reference.id());
            assertThat(fast.kind()).isEqualTo(reference.kind());
            assertThat(fast.at()).isEqualTo(reference.at());
            assertThat(fast.session()).isEqualTo(reference.session());
            assertThat(fast.client()).isEqualTo(reference.client());
            assertThat(fast.seq()).isEqualTo(reference.seq());
            assertThat(fast.prev()).isEqualTo(reference.prev());
            assertThat(fast.request()).isEqualTo(reference.request());
            assertThat(fast.keyId()).isEqualTo(reference.keyId());
            assertThat(fast.ledger()).isEqualTo(reference.ledger());
            accepted++;
        }
        // Both kinds of line were tried: the vectors and harmless changes are accepted, most changes refused.
        assertThat(accepted).isGreaterThan(6);
        assertThat(variants().stream().map(Receipt::fromMembers).filter(r -> r != null && r.client() != null))
                .as("client-stream receipts among the accepted").isNotEmpty();
        assertThat(refused).isGreaterThan(1000);
    }
}
