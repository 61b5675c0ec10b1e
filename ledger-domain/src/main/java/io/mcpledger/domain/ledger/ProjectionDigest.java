package io.mcpledger.domain.ledger;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStateJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The projection digest of spec section 10: SHA-256 of the JCS of
 * {@code {"sessions": [S without expiresAt, by id], "revokedPrincipals": [sorted], "policy": HASH}}.
 * The live ledger, {@code rebuild} and the offline replay compute it with this class: {@link Stream} hashes the JCS
 * bytes as they come, so no caller holds every session at once.
 */
public final class ProjectionDigest {
    private ProjectionDigest() {
    }

    /** The whole document, for a replay that prints it. */
    public static ObjectNode document(MemoryLedgerState state) {
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

    public static String of(MemoryLedgerState state) {
        Stream digest = new Stream(state.policy());
        state.revokedPrincipals().forEach(digest::revokedPrincipal);
        state.sessions().values().forEach(digest::session);
        return digest.finish();
    }

    /** The digest of a document {@link #document} made (for a caller that also prints it). */
    public static String of(ObjectNode document) {
        return Sha256.hex(Canonical.jcsBytes(document));
    }

    /**
     * The digest computed as the document's JCS bytes are written: the policy first, then every revoked principal in
     * order, then every session in id order (JCS sorts {@code policy} before {@code revokedPrincipals} before
     * {@code sessions}). Callers must give the principals and the sessions sorted, and each once.
     */
    public static final class Stream {
        private final MessageDigest sha = Sha256.newDigest();
        private int part;
        private boolean first = true;

        public Stream(String policy) {
            sha.update((byte) '{');
            if (policy != null) {
                ascii("\"policy\":");
                sha.update(jcsString(policy));
                sha.update((byte) ',');
            }
            ascii("\"revokedPrincipals\":[");
        }

        public Stream revokedPrincipal(String tokenRef) {
            requirePart(0);
            separate();
            sha.update(jcsString(tokenRef));
            return this;
        }

        public Stream session(SessionState session) {
            return sessionView(SessionStateJson.view(session));
        }

        /** A session given as {@link SessionStateJson#view} bytes, as the projections store them. */
        public Stream sessionView(byte[] view) {
            if (part == 0) {
                ascii("],\"sessions\":[");
                part = 1;
                first = true;
            }
            separate();
            sha.update(view);
            return this;
        }

        /** Ends the document and answers its digest in lowercase hex; the stream is used up. */
        public String finish() {
            if (part == 0) {
                ascii("],\"sessions\":[");
            }
            ascii("]}");
            part = 2;
            return Hex.encode(sha.digest());
        }

        private void requirePart(int expected) {
            if (part != expected) {
                throw new IllegalStateException("revoked principals come before every session");
            }
        }

        private void separate() {
            if (!first) {
                sha.update((byte) ',');
            }
            first = false;
        }

        /** A string as JCS writes it; the canonicalizer takes only objects and arrays, so one in an array. */
        private static byte[] jcsString(String text) {
            byte[] array = Canonical.jcsBytes(Canonical.JSON.createArrayNode().add(text));
            return java.util.Arrays.copyOfRange(array, 1, array.length - 1);
        }

        private void ascii(String text) {
            sha.update(text.getBytes(StandardCharsets.US_ASCII));
        }
    }
}
