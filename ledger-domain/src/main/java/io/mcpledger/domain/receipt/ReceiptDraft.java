package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.Identifiers;
import java.time.Instant;
import java.util.Objects;

/**
 * Everything a receipt says except what the signer adds ({@code v}, {@code ledger}, {@code keyId},
 * {@code sig}). Session receipts have {@code session} and {@code seq} (and {@code prev} past seq 1);
 * ledger-wide receipts leave them null and 0.
 */
public record ReceiptDraft(String id, ReceiptKind kind, Instant at, String session, long seq, String prev,
                           String request, ObjectNode body) {
    public ReceiptDraft {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(body, "body");
        if (!Identifiers.isVisibleAscii(id, Receipt.MAX_ID_LENGTH)) {
            throw new IllegalArgumentException("receipt id must be 1 to 128 visible ASCII characters: " + id);
        }
        if (Receipt.isCallKind(kind) != (request != null) || (request != null && request.isEmpty())) {
            throw new IllegalArgumentException(kind + (request == null ? " needs a request id" : " carries no request id"));
        }
        try {
            Receipt.checkValues(body, "body");
        } catch (InvalidReceiptException e) {
            throw new IllegalArgumentException("receipt body cannot be signed: " + e.getMessage(), e);
        }
        if (kind.sessionScoped()) {
            Objects.requireNonNull(session, "session");
            if (seq < 1 || (seq == 1) != (prev == null)) {
                throw new IllegalArgumentException("seq " + seq + " with prev " + prev + " breaks the session chain");
            }
        } else if (session != null || seq != 0 || prev != null) {
            throw new IllegalArgumentException(kind + " receipts carry no session fields");
        }
    }

    /** A ledger-wide receipt ({@code policy.activated}, {@code principal.revoked}). */
    public static ReceiptDraft ledgerWide(String id, ReceiptKind kind, Instant at, ObjectNode body) {
        return new ReceiptDraft(id, kind, at, null, 0, null, null, body);
    }
}
