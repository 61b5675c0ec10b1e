package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ReceiptVectorsTest {
    private static final ReceiptSigner SIGNER =
            new ReceiptSigner(SigningKey.fromSeed(LedgerVectors.seed()), LedgerVectors.origin());

    static Stream<Named<JsonNode>> vectors() {
        return LedgerVectors.receipts().stream()
                .map(v -> Named.of(v.get("receipt").get("id").asText(), v));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void resigningTheFieldsGivesTheVectorLine(JsonNode vector) {
        Receipt signed = SIGNER.sign(LedgerVectors.draftOf(vector.get("receipt")));

        assertThat(signed.line()).isEqualTo(vector.get("jcs").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void resigningTheFieldsGivesTheVectorSigningInput(JsonNode vector) {
        Receipt signed = SIGNER.sign(LedgerVectors.draftOf(vector.get("receipt")));

        assertThat(Hex.encode(signed.signingInput())).isEqualTo(vector.get("signingInputHex").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void resigningTheFieldsGivesTheVectorSignature(JsonNode vector) {
        Receipt signed = SIGNER.sign(LedgerVectors.draftOf(vector.get("receipt")));

        assertThat(signed.sig()).isEqualTo(vector.get("receipt").get("sig").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void signerKeyIdIsTheVectorKeyId(JsonNode vector) {
        assertThat(SIGNER.keyId()).isEqualTo(vector.get("receipt").get("keyId").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void canonicalFormOfTheVectorObjectIsTheVectorLine(JsonNode vector) {
        // The vector's "receipt" object is written in a non-canonical member order, so this checks the JCS
        // encoder on its own, independently of the signer.
        assertThat(Canonical.jcs(vector.get("receipt"))).isEqualTo(vector.get("jcs").asText());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void parsingTheVectorLineRoundTrips(JsonNode vector) throws InvalidReceiptException {
        String jcs = vector.get("jcs").asText();
        JsonNode fields = vector.get("receipt");

        Receipt parsed = Receipt.parse(jcs);

        assertThat(parsed.line()).isEqualTo(jcs);
        assertThat(parsed.lineBytes()).isEqualTo(jcs.getBytes(StandardCharsets.UTF_8));
        assertThat(parsed.id()).isEqualTo(fields.get("id").asText());
        assertThat(parsed.kind().wire()).isEqualTo(fields.get("kind").asText());
        assertThat(Timestamps.format(parsed.at())).isEqualTo(fields.get("at").asText());
        assertThat(parsed.ledger()).isEqualTo(fields.get("ledger").asText());
        assertThat(parsed.session()).isEqualTo(fields.path("session").textValue());
        assertThat(parsed.seq()).isEqualTo(fields.path("seq").asLong(0));
        assertThat(parsed.prev()).isEqualTo(fields.path("prev").textValue());
        assertThat(parsed.request()).isEqualTo(fields.path("request").textValue());
        assertThat(parsed.body()).isEqualTo(fields.get("body"));
        assertThat(parsed.keyId()).isEqualTo(fields.get("keyId").asText());
        assertThat(parsed.sig()).isEqualTo(fields.get("sig").asText());
        assertThat(Hex.encode(parsed.signingInput())).isEqualTo(vector.get("signingInputHex").asText());
        assertThat(Canonical.jcs(parsed.toJson())).isEqualTo(jcs);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void parsedAndResignedReceiptsAreEqual(JsonNode vector) throws InvalidReceiptException {
        Receipt signed = SIGNER.sign(LedgerVectors.draftOf(vector.get("receipt")));

        assertThat(Receipt.parse(vector.get("jcs").asText())).isEqualTo(signed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void hashIsTheSha256HexOfTheLine(JsonNode vector) throws InvalidReceiptException {
        String jcs = vector.get("jcs").asText();

        assertThat(Receipt.parse(jcs).hash()).isEqualTo(Sha256.hexOfUtf8(jcs));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void leafHashIsTheVectorLeafHash(JsonNode vector) {
        // RFC 9162 leaf hash, written out here until the Merkle code exists: SHA-256(0x00 || JCS bytes).
        byte[] leafHash = Sha256.digest(new byte[] {0x00}, vector.get("jcs").asText().getBytes(StandardCharsets.UTF_8));

        assertThat(Base64.getEncoder().encodeToString(leafHash)).isEqualTo(vector.get("leafHashB64").asText());
    }

    @Test
    void eachSessionReceiptPointsAtTheHashOfThePreviousReceiptOfItsSession() throws InvalidReceiptException {
        Map<String, Receipt> lastBySession = new HashMap<>();
        int linked = 0;
        for (JsonNode vector : LedgerVectors.receipts()) {
            Receipt receipt = Receipt.parse(vector.get("jcs").asText());
            if (receipt.session() == null) {
                continue;
            }
            Receipt previous = lastBySession.put(receipt.session(), receipt);
            if (previous == null) {
                assertThat(receipt.seq()).as(receipt.id()).isEqualTo(1);
                assertThat(receipt.prev()).as(receipt.id()).isNull();
            } else {
                assertThat(receipt.seq()).as(receipt.id()).isEqualTo(previous.seq() + 1);
                assertThat(receipt.prev()).as(receipt.id()).isEqualTo(Sha256.hexOfUtf8(previous.line()));
                linked++;
            }
        }
        assertThat(linked).isEqualTo(4);
    }
}
