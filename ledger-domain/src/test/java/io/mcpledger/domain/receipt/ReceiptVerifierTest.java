package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.crypto.VerifyingKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ReceiptVerifierTest {
    private static final String KEY_ID = LedgerVectors.key().get("keyId").asText();
    private static final String INITIALIZED = LedgerVectors.receipt("rcpt-test-0001-session.initialized")
            .get("jcs").asText();

    private final ReceiptVerifier verifier = new ReceiptVerifier(vectorPublicKey(), KEY_ID);

    static Stream<Named<String>> vectorLines() {
        return LedgerVectors.receipts().stream()
                .map(v -> Named.of(v.get("receipt").get("id").asText(), v.get("jcs").asText()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectorLines")
    void acceptsTheVectorReceipt(String line) throws InvalidReceiptException {
        assertThat(verifier.check(Receipt.parse(line))).isEmpty();
    }

    @Test
    void refusesAReceiptWithOneByteOfItsBodyChanged() throws InvalidReceiptException {
        String changed = INITIALIZED.replace("\"principal\":\"alice\"", "\"principal\":\"alicf\"");
        assertThat(differingBytes(INITIALIZED, changed)).isEqualTo(1);

        assertThat(verifier.check(Receipt.parse(changed))).contains("signature does not verify");
    }

    @Test
    void refusesAReceiptNamingAnotherKeyId() throws Exception {
        ObjectNode tree = tree(INITIALIZED);
        tree.put("keyId", "00000000");

        assertThat(verifier.check(Receipt.parse(Canonical.jcs(tree))))
                .contains("keyId 00000000 is not the key adf8fba0");
    }

    @Test
    void refusesEveryReceiptWhenExpectingAnotherKeyId() throws InvalidReceiptException {
        ReceiptVerifier expectingOtherKeyId = new ReceiptVerifier(vectorPublicKey(), "0badc0de");

        assertThat(expectingOtherKeyId.check(Receipt.parse(INITIALIZED)))
                .contains("keyId adf8fba0 is not the key 0badc0de");
    }

    @Test
    void refusesASignatureMadeByAnotherKey() throws Exception {
        Receipt genuine = Receipt.parse(INITIALIZED);
        byte[] forged = otherKey().sign(genuine.signingInput());
        ObjectNode tree = genuine.toJson();
        tree.put("sig", Base64.getEncoder().encodeToString(forged));

        assertThat(verifier.check(Receipt.parse(Canonical.jcs(tree)))).contains("signature does not verify");
    }

    @Test
    void refusesTheVectorReceiptWhenHoldingAnotherPublicKey() throws InvalidReceiptException {
        ReceiptVerifier otherKeySameId = new ReceiptVerifier(otherKey().publicKey(), KEY_ID);

        assertThat(otherKeySameId.check(Receipt.parse(INITIALIZED))).contains("signature does not verify");
    }

    @Test
    void acceptsAReceiptTheSignerJustMade() {
        ReceiptSigner signer = new ReceiptSigner(SigningKey.fromSeed(LedgerVectors.seed()), LedgerVectors.origin());
        JsonNode fields = LedgerVectors.receipt("rcpt-test-0003-call.outcome").get("receipt");

        assertThat(verifier.check(signer.sign(LedgerVectors.draftOf(fields)))).isEmpty();
    }

    private static SigningKey otherKey() {
        byte[] seed = new byte[32];
        Arrays.fill(seed, (byte) 0x42);
        return SigningKey.fromSeed(seed);
    }

    private static VerifyingKey vectorPublicKey() {
        try {
            return VerifyingKey.fromPem(LedgerVectors.key().get("publicPem").asText());
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("the vector public key must read", e);
        }
    }

    private static ObjectNode tree(String line) throws IOException {
        return (ObjectNode) Canonical.parse(line);
    }

    private static int differingBytes(String a, String b) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        assertThat(y).hasSameSizeAs(x);
        int differing = 0;
        for (int i = 0; i < x.length; i++) {
            if (x[i] != y[i]) {
                differing++;
            }
        }
        return differing;
    }
}
