package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Signs receipt drafts with the ledger key: Ed25519 over the domain prefix and the receipt's JCS. */
public final class ReceiptSigner {
    static final byte[] DOMAIN = "mcp-ledger-receipt-v1\n".getBytes(StandardCharsets.US_ASCII);

    private final SigningKey key;
    private final String origin;
    private final String keyId;

    public ReceiptSigner(SigningKey key, String origin) {
        this.key = key;
        this.origin = origin;
        this.keyId = LogKeys.keyId(origin, key.publicKey().raw());
    }

    public String origin() {
        return origin;
    }

    public String keyId() {
        return keyId;
    }

    public Receipt sign(ReceiptDraft draft) {
        ObjectNode json = Canonical.JSON.createObjectNode();
        json.put("v", 1);
        json.put("id", draft.id());
        json.put("kind", draft.kind().wire());
        json.put("at", Timestamps.format(draft.at()));
        json.put("ledger", origin);
        if (draft.session() != null || draft.client() != null) {
            json.put(draft.client() != null ? "client" : "session",
                    draft.client() != null ? draft.client() : draft.session());
            json.put("seq", draft.seq());
            if (draft.prev() != null) {
                json.put("prev", draft.prev());
            }
        }
        if (draft.request() != null) {
            json.put("request", draft.request());
        }
        json.set("body", draft.body().deepCopy());
        json.put("keyId", keyId);
        byte[] signature = key.sign(signingInput(json));
        json.put("sig", Base64.getEncoder().encodeToString(signature));
        return Receipt.signed(Canonical.jcs(json), json, draft.kind(), Timestamps.truncate(draft.at()));
    }

    static byte[] signingInput(ObjectNode unsigned) {
        byte[] jcs = Canonical.jcsBytes(unsigned);
        byte[] input = new byte[DOMAIN.length + jcs.length];
        System.arraycopy(DOMAIN, 0, input, 0, DOMAIN.length);
        System.arraycopy(jcs, 0, input, DOMAIN.length, jcs.length);
        return input;
    }
}
