package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tokenRef is SHA-256("mcp-ledger-token-ref\n" || the token hash's 32 bytes) however often it is asked for: the
 * tokenRefs kept for the next asking (by the token's hash code, replaced when another token takes the slot) never
 * answer for another token, and a malformed token hash is refused every time. (The contract's vector:
 * ClientTokenBindingTest.)
 */
class TokenRefsTest {
    private static final byte[] DOMAIN = "mcp-ledger-token-ref\n".getBytes(StandardCharsets.US_ASCII);

    private static String token(int i) {
        return Sha256.hexOfUtf8("client-" + i);
    }

    @Test
    void everyAskingAnswersTheDomainSeparatedHashOfItsOwnToken() {
        // More tokens than slots, so most slots are taken over by another token, and asked again in another order.
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            tokens.add(token(i));
        }
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < tokens.size(); i++) {
                String token = tokens.get(round == 1 ? tokens.size() - 1 - i : i);
                assertThat(TokenRefs.of(token)).as(token).isEqualTo(Sha256.hex(DOMAIN, Hex.decode(token)));
            }
        }
    }

    @Test
    void aMalformedTokenHashIsRefusedEvenRightAfterAGoodOne() {
        String good = token(1);
        TokenRefs.of(good);

        for (String bad : new String[] {good.toUpperCase(), good.substring(1), good + "0", "", "x".repeat(64)}) {
            assertThatThrownBy(() -> TokenRefs.of(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> TokenRefs.of(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TokenRefs.of(good)).isEqualTo(Sha256.hex(DOMAIN, Hex.decode(good)));
    }
}
