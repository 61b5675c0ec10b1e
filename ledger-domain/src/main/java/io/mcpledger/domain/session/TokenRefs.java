package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import java.nio.charset.StandardCharsets;

/**
 * The {@code tokenRef} receipts use instead of a client token's SHA-256:
 * SHA-256("mcp-ledger-token-ref\n" || the 32 raw bytes of the token's SHA-256), so a published log
 * never carries the value an edge sends.
 */
public final class TokenRefs {
    private static final byte[] DOMAIN = "mcp-ledger-token-ref\n".getBytes(StandardCharsets.US_ASCII);

    private TokenRefs() {
    }

    public static String of(String clientTokenSha256Hex) {
        if (!Hex.isLowerHex(clientTokenSha256Hex, 64)) {
            throw new IllegalArgumentException("a client token's SHA-256 is 64 lowercase hex characters");
        }
        return Sha256.hex(DOMAIN, Hex.decode(clientTokenSha256Hex));
    }
}
