package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.crypto.Hex;
import java.time.Instant;
import java.util.Objects;

/**
 * Everything a receipt says except what the signer adds ({@code v}, {@code ledger}, {@code keyId},
 * {@code sig}). Session receipts have {@code session} and {@code seq} (and {@code prev} past seq 1); call receipts
 * of a client stream (a call made without a session) have {@code client} instead of {@code session}; ledger-wide
 * receipts leave them null and 0.
 */
public record ReceiptDraft(String id, ReceiptKind kind, Instant at, String session, long seq, String prev,
                           String request, ObjectNode body, String client) {
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
        if (client != null) {
            if (!Receipt.isCallKind(kind) || session != null) {
                throw new IllegalArgumentException(kind + " with client " + client + (session != null
                        ? " and session " + session + ": a receipt belongs to one stream" : ": only call receipts"
                        + " belong to a client stream"));
            }
            if (!Hex.isLowerHex(client, 64)) {
                throw new IllegalArgumentException("client must be a tokenRef (64 lowercase hex): " + client);
            }
        }
        if (kind.sessionScoped()) {
            if (client == null) {
                Objects.requireNonNull(session, "session");
            }
            if (seq < 1 || (seq == 1) != (prev == null)) {
                throw new IllegalArgumentException("seq " + seq + " with prev " + prev + " breaks the "
                        + (client == null ? "session" : "client") + " chain");
            }
        } else if (session != null || seq != 0 || prev != null) {
            throw new IllegalArgumentException(kind + " receipts carry no session fields");
        }
    }

    /** A receipt of a session ({@code session.*}, {@code capability.revoked}, or a call in a session). */
    public ReceiptDraft(String id, ReceiptKind kind, Instant at, String session, long seq, String prev, String request,
            ObjectNode body) {
        this(id, kind, at, session, seq, prev, request, body, null);
    }

    /** A call receipt of the client stream {@code tokenRef}: a call made without a session. */
    public static ReceiptDraft inClient(String id, ReceiptKind kind, Instant at, String tokenRef, long seq,
            String prev, String request, ObjectNode body) {
        return new ReceiptDraft(id, kind, at, null, seq, prev, request, body, tokenRef);
    }

    /** A ledger-wide receipt ({@code policy.activated}, {@code principal.revoked}). */
    public static ReceiptDraft ledgerWide(String id, ReceiptKind kind, Instant at, ObjectNode body) {
        return new ReceiptDraft(id, kind, at, null, 0, null, null, body);
    }
}
