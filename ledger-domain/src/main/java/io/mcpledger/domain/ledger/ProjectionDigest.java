package io.mcpledger.domain.ledger;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStateJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The projection digest of contract section 10: SHA-256 of the JCS of
 * {@code {"sessions": [S without expiresAt, by id], "revokedPrincipals": [sorted], "policy": HASH}}, and since contract
 * v1.1 (section 15) {@code "clients": [C by tokenRef]} while the log holds a client stream (omitted while it holds
 * none, so a log without sessionless calls keeps its digest).
 * The live ledger, {@code rebuild} and the offline replay compute it with this class: {@link Stream} hashes the JCS
 * bytes as they come, so no caller holds every session at once.
 */
public final class ProjectionDigest {
    private ProjectionDigest() {
    }

    /** The whole document, for a replay that prints it. */
    public static ObjectNode document(MemoryLedgerState state) {
        ObjectNode doc = Canonical.JSON.createObjectNode();
        if (!state.clients().isEmpty()) {
            ArrayNode clients = doc.putArray("clients");
            state.clients().values().forEach(c -> clients.add(c.toJson()));
        }
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
        state.clients().values().forEach(digest::client);
        state.revokedPrincipals().forEach(digest::revokedPrincipal);
        state.sessions().values().forEach(digest::session);
        return digest.finish();
    }

    /** The digest of a document {@link #document} made (for a caller that also prints it). */
    public static String of(ObjectNode document) {
        return Sha256.hex(Canonical.jcsBytes(document));
    }

    /**
     * The digest computed as the document's JCS bytes are written: every client stream in tokenRef order, the policy,
     * every revoked principal in order, then every session in id order (JCS sorts {@code clients} before {@code
     * policy} before {@code revokedPrincipals} before {@code sessions}). Callers must give each part sorted, each
     * member once, and the parts in that order.
     */
    public static final class Stream {
        /** The parts, in the order they are written. */
        private static final int START = 0;
        private static final int CLIENTS = 1;
        private static final int PRINCIPALS = 2;
        private static final int SESSIONS = 3;
        private static final int DONE = 4;

        private final MessageDigest sha = Sha256.newDigest();
        private final String policy;
        private int part = START;
        private boolean first = true;

        public Stream(String policy) {
            this.policy = policy;
            sha.update((byte) '{');
        }

        /** A client stream (contract section 15); before every revoked principal and session. */
        public Stream client(ClientState client) {
            return clientView(Canonical.jcsBytes(client.toJson()));
        }

        /** A client stream given as the JCS bytes of its object {@code C}. */
        public Stream clientView(byte[] view) {
            if (part > CLIENTS) {
                throw new IllegalStateException("client streams come before every revoked principal and session");
            }
            if (part == START) {
                ascii("\"clients\":[");
                part = CLIENTS;
                first = true;
            }
            separate();
            sha.update(view);
            return this;
        }

        public Stream revokedPrincipal(String tokenRef) {
            startPrincipals();
            if (part != PRINCIPALS) {
                throw new IllegalStateException("revoked principals come before every session");
            }
            separate();
            sha.update(jcsString(tokenRef));
            return this;
        }

        public Stream session(SessionState session) {
            return sessionView(SessionStateJson.view(session));
        }

        /** A session given as {@link SessionStateJson#view} bytes, as the projections store them. */
        public Stream sessionView(byte[] view) {
            startSessions();
            separate();
            sha.update(view);
            return this;
        }

        /** Ends the document and answers its digest in lowercase hex; the stream is used up. */
        public String finish() {
            startSessions();
            ascii("]}");
            part = DONE;
            return Hex.encode(sha.digest());
        }

        /** Closes the clients, if any, writes the policy and opens the revoked principals, once. */
        private void startPrincipals() {
            if (part > CLIENTS) {
                return;
            }
            if (part == CLIENTS) {
                ascii("],");
            }
            if (policy != null) {
                ascii("\"policy\":");
                sha.update(jcsString(policy));
                sha.update((byte) ',');
            }
            ascii("\"revokedPrincipals\":[");
            part = PRINCIPALS;
            first = true;
        }

        private void startSessions() {
            startPrincipals();
            if (part == PRINCIPALS) {
                ascii("],\"sessions\":[");
                part = SESSIONS;
                first = true;
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
