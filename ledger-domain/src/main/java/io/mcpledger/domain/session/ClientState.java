package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;

/**
 * A client stream's state (contract section 15): the calls a client made without a session, keyed by its tokenRef
 * (the SHA-256 of its token), as {@link ClientFold} leaves them. The client object {@code C} is {@link #toJson}.
 */
public final class ClientState extends CallCounts {
    final String tokenRef;
    String principal;
    long seq;
    String head;

    ClientState(String tokenRef) {
        this.tokenRef = tokenRef;
    }

    /** An independent copy, for a reader that will change it. */
    public ClientState copy() {
        ClientState c = new ClientState(tokenRef);
        c.principal = principal;
        copyCountsTo(c);
        c.seq = seq;
        c.head = head;
        return c;
    }

    public String tokenRef() {
        return tokenRef;
    }

    /** The principal of the stream's first receipt; every later decision names the same one. */
    public String principal() {
        return principal;
    }

    /** The seq of the stream's last receipt. */
    public long seq() {
        return seq;
    }

    /** The hash of the stream's last receipt: the next one's {@code prev}. */
    public String head() {
        return head;
    }

    /** Reads back what {@link #toJson} wrote: the projections store a client stream as its object C. */
    public static ClientState fromJson(JsonNode c) {
        ClientState state = new ClientState(c.path("tokenRef").asText());
        state.principal = c.path("principal").asText();
        JsonNode calls = c.path("calls");
        state.readCounts(calls);
        state.seq = c.path("seq").asLong();
        state.head = c.path("head").asText();
        return state;
    }

    /** The client object {@code C}: {@code tokenRef, principal, calls {...}, seq, head}. */
    public ObjectNode toJson() {
        ObjectNode node = Canonical.JSON.createObjectNode();
        node.put("tokenRef", tokenRef);
        node.put("principal", principal);
        node.set("calls", callsJson());
        node.put("seq", seq);
        node.put("head", head);
        return node;
    }
}
