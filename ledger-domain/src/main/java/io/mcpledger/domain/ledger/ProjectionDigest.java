package io.mcpledger.domain.ledger;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.SessionState;

/**
 * The projection digest of spec section 10: SHA-256 of the JCS of
 * {@code {"sessions": [S without expiresAt, by id], "revokedPrincipals": [sorted], "policy": HASH}}.
 * The live ledger and the offline replay compute it with this one method.
 */
public final class ProjectionDigest {
    private ProjectionDigest() {
    }

    public static ObjectNode document(LedgerState state) {
        ObjectNode doc = Canonical.JSON.createObjectNode();
        ArrayNode sessions = doc.putArray("sessions");
        for (SessionState s : state.sessions().values()) {
            sessions.add(SessionView.toJson(s, null));
        }
        ArrayNode revoked = doc.putArray("revokedPrincipals");
        state.revokedPrincipals().forEach(revoked::add);
        if (state.policy() != null) {
            doc.put("policy", state.policy());
        }
        return doc;
    }

    public static String of(LedgerState state) {
        return of(document(state));
    }

    /** The digest of a document {@link #document} made (for a caller that also prints it). */
    public static String of(ObjectNode document) {
        return Sha256.hex(Canonical.jcsBytes(document));
    }
}
