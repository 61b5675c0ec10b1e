package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.log.VerifierKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The ledger-v1 contract vectors (src/test/resources/vectors/README.md says where they come from). */
public final class LedgerVectors {
    private static final String RESOURCE = "/vectors/ledger-vectors.json";
    private static final JsonNode ROOT = load();

    private LedgerVectors() {
    }

    private static JsonNode load() {
        try (InputStream in = LedgerVectors.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the test classpath");
            }
            return Canonical.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JsonNode key() {
        return ROOT.get("key");
    }

    public static byte[] seed() {
        return Hex.decode(key().get("seedHex").asText());
    }

    public static String origin() {
        return key().get("origin").asText();
    }

    /** The verifier key of the vectors' origin and key, as checkpoints of the vectors are opened with. */
    public static VerifierKey verifierKey() {
        try {
            return VerifierKey.of(origin(), SigningKey.fromSeed(seed()).publicKey());
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("the vectors' origin does not name a key: " + e.getMessage(), e);
        }
    }

    public static JsonNode sessionId() {
        return ROOT.get("sessionId");
    }

    public static String sessionTokenRef() {
        return ROOT.get("sessionTokenRef").asText();
    }

    public static JsonNode policy() {
        return ROOT.get("policy");
    }

    /** The receipts in log order; each has {@code receipt}, {@code jcs}, {@code signingInputHex}, {@code leafHashB64}. */
    public static List<JsonNode> receipts() {
        List<JsonNode> receipts = new ArrayList<>();
        ROOT.get("receipts").forEach(receipts::add);
        return receipts;
    }

    /** A top-level section of the vectors: {@code checkpoint}, {@code inclusion}, {@code consistency}, {@code c2spExample}. */
    public static JsonNode section(String name) {
        JsonNode section = ROOT.get(name);
        if (section == null) {
            throw new IllegalArgumentException("the vectors have no section " + name);
        }
        return section;
    }

    /** The vector whose receipt has this id. */
    public static JsonNode receipt(String id) {
        return receipts().stream()
                .filter(r -> r.get("receipt").get("id").asText().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no vector receipt " + id));
    }

    /** A draft carrying exactly the fields of a vector receipt that the signer does not add itself. */
    public static ReceiptDraft draftOf(JsonNode receipt) {
        return new ReceiptDraft(
                receipt.get("id").asText(),
                ReceiptKind.fromWire(receipt.get("kind").asText()).orElseThrow(),
                Instant.parse(receipt.get("at").asText()),
                textOrNull(receipt, "session"),
                receipt.path("seq").asLong(0),
                textOrNull(receipt, "prev"),
                textOrNull(receipt, "request"),
                ((ObjectNode) receipt.get("body")).deepCopy());
    }

    private static String textOrNull(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null ? null : value.asText();
    }
}
