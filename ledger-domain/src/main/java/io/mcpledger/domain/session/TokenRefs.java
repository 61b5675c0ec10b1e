package io.mcpledger.domain.session;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code tokenRef} receipts use instead of a client token's SHA-256:
 * SHA-256("mcp-ledger-token-ref\n" || the 32 raw bytes of the token's SHA-256), so a published log
 * never carries the value an edge sends.
 */
public final class TokenRefs {
    private static final byte[] DOMAIN = "mcp-ledger-token-ref\n".getBytes(StandardCharsets.US_ASCII);
    /**
     * The last tokenRefs made, by the token's hash code: a sessionless call asks for its stream's tokenRef four or five
     * times on its way (its worker, the read-ahead, its aggregate, its receipt), a SHA-256 each time. Each slot holds
     * one immutable pair, replaced whole.
     */
    private static final int SLOTS = 1024;
    private static final AtomicReferenceArray<String[]> MADE = new AtomicReferenceArray<>(SLOTS);

    private TokenRefs() {
    }

    public static String of(String clientTokenSha256Hex) {
        int slot = clientTokenSha256Hex == null ? 0 : clientTokenSha256Hex.hashCode() & (SLOTS - 1);
        String[] made = MADE.get(slot);
        if (made != null && made[0].equals(clientTokenSha256Hex)) {
            return made[1];
        }
        if (clientTokenSha256Hex == null || !Hex.isLowerHex(clientTokenSha256Hex, 64)) {
            throw new IllegalArgumentException("a client token's SHA-256 is 64 lowercase hex characters");
        }
        String tokenRef = Sha256.hex(DOMAIN, Hex.decode(clientTokenSha256Hex));
        MADE.set(slot, new String[] {clientTokenSha256Hex, tokenRef});
        return tokenRef;
    }
}
