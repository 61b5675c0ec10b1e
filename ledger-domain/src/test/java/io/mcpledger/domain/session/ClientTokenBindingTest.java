package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.util.Arrays;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the ledger ties sessions and receipts to a client token it only knows by SHA-256: session ids
 * (contract section 4) and tokenRef (contract section 6), against the contract vectors.
 */
class ClientTokenBindingTest {
    private static final JsonNode VECTOR = LedgerVectors.sessionId();
    private static final String TOKEN_SHA256 = VECTOR.get("clientTokenSha256").asText();
    private static final String RANDOM_HEX = VECTOR.get("randomHex").asText();
    private static final String ID = VECTOR.get("id").asText();
    private static final String OTHER_TOKEN_SHA256 = Sha256.hexOfUtf8("client-token-2");

    @Test
    void clientTokenHashesToTheVectorSha256() {
        assertThat(Sha256.hexOfUtf8(VECTOR.get("clientToken").asText()))
                .isEqualTo("d1d346bb6737050e2b9b8da47cc0dc24d52ecd552ec4079919ce1c2b5a6fa996")
                .isEqualTo(TOKEN_SHA256);
    }

    @Test
    void specFormulaGivesTheVectorSessionId() throws Exception {
        // Written out with javax.crypto rather than SessionIds so the vector also checks that class.
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(Hex.decode(TOKEN_SHA256), "HmacSHA256"));
        byte[] tag = Arrays.copyOf(hmac.doFinal(Hex.decode(RANDOM_HEX)), 16);

        assertThat("mcp-" + RANDOM_HEX + "-" + Hex.encode(tag)).isEqualTo(ID);
    }

    @Test
    void issueGivesTheVectorSessionId() {
        assertThat(SessionIds.issue(TOKEN_SHA256, Hex.decode(RANDOM_HEX)))
                .isEqualTo("mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a")
                .isEqualTo(ID);
    }

    @Test
    void issueRefusesFifteenRandomBytes() {
        assertThatThrownBy(() -> SessionIds.issue(TOKEN_SHA256, new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a session id needs 16 random bytes, got 15");
    }

    @Test
    void vectorSessionIdIsIssuedToItsToken() {
        assertThat(SessionIds.isIssuedTo(ID, TOKEN_SHA256)).isTrue();
    }

    @Test
    void vectorSessionIdIsNotIssuedToAnotherToken() {
        assertThat(SessionIds.isIssuedTo(ID, OTHER_TOKEN_SHA256)).isFalse();
    }

    @Test
    void idWhoseTagWasIssuedToAnotherTokenIsNotIssuedToThisOne() {
        String otherTokensId = SessionIds.issue(OTHER_TOKEN_SHA256, Hex.decode(RANDOM_HEX));
        assertThat(otherTokensId).startsWith("mcp-" + RANDOM_HEX + "-").isNotEqualTo(ID);

        assertThat(SessionIds.isIssuedTo(otherTokensId, TOKEN_SHA256)).isFalse();
    }

    @Test
    void idWithOneTagBitFlippedIsNotIssued() {
        String flipped = ID.substring(0, ID.length() - 1) + (ID.endsWith("a") ? "b" : "a");

        assertThat(SessionIds.isIssuedTo(flipped, TOKEN_SHA256)).isFalse();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @NullAndEmptySource
    @ValueSource(strings = {
        "mcq-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a",
        "MCP-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a",
        "mcp_00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899aabbccddeeff_3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899aabbccddee-3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d",
        "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1a00",
        "mcp-00112233445566778899aabbccddeeff00-3751f11ecfe739ef25d1565703938d",
        "mcp-00112233445566778899aabbccddeeff3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899AABBCCDDEEFF-3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899aabbccddeeff-3751F11ECFE739EF25D1565703938D1A",
        "mcp-00112233445566778899aabbccddeefg-3751f11ecfe739ef25d1565703938d1a",
        "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1z",
        " mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1",
        "mcp-00112233445566778899aabbccddeeff-3751f11ecfe739ef25d1565703938d1\u00e9",
        "mcp--3751f11ecfe739ef25d1565703938d1a",
    })
    void malformedIdIsNotIssuedAndDoesNotThrow(String malformed) {
        assertThat(SessionIds.isIssuedTo(malformed, TOKEN_SHA256)).isFalse();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @NullAndEmptySource
    @ValueSource(strings = {
        "D1D346BB6737050E2B9B8DA47CC0DC24D52ECD552EC4079919CE1C2B5A6FA996",
        "d1d346bb6737050e2b9b8da47cc0dc24d52ecd552ec4079919ce1c2b5a6fa9",
        "client-token-1",
    })
    void malformedTokenHashIsNotIssuedAndDoesNotThrow(String malformed) {
        assertThat(SessionIds.isIssuedTo(ID, malformed)).isFalse();
    }

    @Test
    void uppercasedVectorIdIsNotIssued() {
        String upper = "mcp-" + ID.substring(4).toUpperCase(Locale.ROOT);

        assertThat(SessionIds.isIssuedTo(upper, TOKEN_SHA256)).isFalse();
    }

    @Test
    void tokenRefOfTheVectorTokenIsTheVectorTokenRef() {
        assertThat(TokenRefs.of(TOKEN_SHA256))
                .isEqualTo("5bfbbf33c4df012eb74e1b1318fd067e5782359c1a9cdc807baf0764fc219b89")
                .isEqualTo(LedgerVectors.sessionTokenRef());
    }

    @Test
    void tokenRefIsTheOneTheVectorInitializeReceiptCarries() {
        JsonNode initialized = LedgerVectors.receipt("rcpt-test-0001-session.initialized").get("receipt");

        assertThat(TokenRefs.of(TOKEN_SHA256)).isEqualTo(initialized.get("body").get("tokenRef").asText());
    }

    @Test
    void tokenRefIsNotTheTokenHashItself() {
        assertThat(TokenRefs.of(TOKEN_SHA256)).isNotEqualTo(TOKEN_SHA256);
    }
}
