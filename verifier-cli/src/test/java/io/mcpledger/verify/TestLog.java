package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.crypto.Ed25519Pem;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.receipt.Timestamps;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test logs: the contract's vectors as a bundle, and further logs signed with the vectors' TEST key, built from the
 * vectors' receipts as templates (the session chain's seq and prev are filled in as receipts are added).
 */
final class TestLog {
    static final JsonNode VECTORS = load();
    static final String ORIGIN = "ledger.example/test";
    static final SigningKey KEY = SigningKey.fromSeed(Hex.decode(VECTORS.path("key").path("seedHex").asText()));
    static final SigningKey OTHER_KEY = SigningKey.fromSeed(new byte[32]);
    static final String SESSION = VECTORS.path("sessionId").path("id").asText();

    private final ReceiptSigner signer;
    private final List<String> lines = new ArrayList<>();
    private final Map<String, Receipt> heads = new HashMap<>();
    private Instant at = Instant.parse("2026-11-30T07:00:00Z");
    private int ids;

    TestLog() {
        this(KEY);
    }

    TestLog(SigningKey key) {
        signer = new ReceiptSigner(key, ORIGIN);
    }

    private static JsonNode load() {
        try (InputStream in = TestLog.class.getResourceAsStream("/vectors/ledger-vectors.json")) {
            return Canonical.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The six receipt lines of the vectors, exactly. */
    static List<String> vectorLines() {
        List<String> lines = new ArrayList<>();
        VECTORS.path("receipts").forEach(r -> lines.add(r.path("jcs").asText()));
        return lines;
    }

    static String vectorCheckpoint() {
        return VECTORS.path("checkpoint").path("text").asText();
    }

    static String publicPem() {
        return VECTORS.path("key").path("publicPem").asText();
    }

    static String vkey() {
        return LogKeys.verifierKey(ORIGIN, KEY.publicKey().raw());
    }

    /** The body of the vectors' receipt of that kind (the first one), as a template. */
    static ObjectNode body(String kind) {
        for (JsonNode r : VECTORS.path("receipts")) {
            if (r.path("receipt").path("kind").asText().equals(kind)) {
                return (ObjectNode) r.path("receipt").path("body").deepCopy();
            }
        }
        throw new IllegalArgumentException("no vector receipt of kind " + kind);
    }

    TestLog policy() {
        return add(ReceiptKind.POLICY_ACTIVATED, null, null, body("policy.activated"));
    }

    TestLog initialize(String session, String incarnation) {
        ObjectNode body = body("session.initialized");
        ((ObjectNode) body.path("edge")).put("incarnation", incarnation);
        ((ObjectNode) body.path("capability")).put("id", "cap-" + session);
        return add(ReceiptKind.SESSION_INITIALIZED, session, null, body);
    }

    TestLog admit(String session, String request, String argumentsSha256) {
        ObjectNode body = body("call.admitted");
        body.put("capability", "cap-" + session);
        body.put("argumentsSha256", argumentsSha256);
        return add(ReceiptKind.CALL_ADMITTED, session, request, body);
    }

    TestLog outcome(String session, String request, String status) {
        ObjectNode body = body("call.outcome");
        body.put("status", status);
        if (!status.equals("ok")) {
            body.remove("resultSha256");
        }
        return add(ReceiptKind.CALL_OUTCOME, session, request, body);
    }

    TestLog refuse(String session, String request) {
        ObjectNode body = body("call.refused");
        body.put("capability", "cap-" + session);
        return add(ReceiptKind.CALL_REFUSED, session, request, body);
    }

    /** A sessionless call decided for the client stream {@code tokenRef} (contract section 15). */
    TestLog decideForClient(String tokenRef, String request, String principal, boolean admitted) {
        ObjectNode body = body(admitted ? "call.admitted" : "call.refused");
        body.remove("capability");
        body.put("principal", principal);
        body.putObject("edge").put("id", "edge-1").put("incarnation", "boot-1");
        return addToClient(admitted ? ReceiptKind.CALL_ADMITTED : ReceiptKind.CALL_REFUSED, tokenRef, request, body);
    }

    TestLog outcomeForClient(String tokenRef, String request, String status) {
        ObjectNode body = body("call.outcome");
        body.put("status", status);
        if (!status.equals("ok")) {
            body.remove("resultSha256");
        }
        return addToClient(ReceiptKind.CALL_OUTCOME, tokenRef, request, body);
    }

    /** Signs the next receipt of a client stream: its seq and prev follow the stream's chain. */
    TestLog addToClient(ReceiptKind kind, String tokenRef, String request, ObjectNode body) {
        at = at.plusMillis(1000);
        Receipt head = heads.get("client " + tokenRef);
        Receipt r = signer.sign(ReceiptDraft.inClient("rcpt-t-" + (ids++), kind, Timestamps.truncate(at), tokenRef,
                head == null ? 1 : head.seq() + 1, head == null ? null : head.hash(), request, body));
        heads.put("client " + tokenRef, r);
        lines.add(r.line());
        return this;
    }

    /** Signs the next receipt: the session's seq and prev follow its chain. */
    TestLog add(ReceiptKind kind, String session, String request, ObjectNode body) {
        at = at.plusMillis(1000);
        String id = "rcpt-t-" + (ids++);
        Receipt head = session == null ? null : heads.get(session);
        long seq = session == null ? 0 : head == null ? 1 : head.seq() + 1;
        String prev = head == null ? null : head.hash();
        Receipt r = signer.sign(new ReceiptDraft(id, kind, Timestamps.truncate(at), session, seq, prev, request, body));
        if (session != null) {
            heads.put(session, r);
        }
        lines.add(r.line());
        return this;
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Signs a checkpoint of the first size lines. */
    static String checkpoint(List<String> lines, long size, SigningKey key) {
        CompactRange tree = CompactRange.empty();
        for (int i = 0; i < size; i++) {
            tree.append(Merkle.leafHash(lines.get(i).getBytes(StandardCharsets.UTF_8)));
        }
        return new Checkpoint(ORIGIN, size, tree.root()).sign(key);
    }

    /** Writes a bundle of lines with a checkpoint of all of them, signed with the TEST key. */
    static Path write(Path dir, List<String> lines) {
        return write(dir, lines, checkpoint(lines, lines.size(), KEY));
    }

    static Path write(Path dir, List<String> lines, String checkpoint) {
        StringBuilder entries = new StringBuilder();
        lines.forEach(l -> entries.append(l).append('\n'));
        return write(dir, entries.toString().getBytes(StandardCharsets.UTF_8), checkpoint);
    }

    static Path write(Path dir, byte[] entries, String checkpoint) {
        try {
            Files.createDirectories(dir);
            Files.write(dir.resolve(Bundles.ENTRIES), entries);
            Files.writeString(dir.resolve(Bundles.CHECKPOINT), checkpoint);
            Files.writeString(dir.resolve(Bundles.PUBLIC_KEY), publicPem());
            Files.writeString(dir.resolve(Bundles.VKEY), vkey() + "\n");
            Files.writeString(dir.resolve("key.pem"), Ed25519Pem.publicKeyPem(KEY.publicKey().raw()));
            Files.writeString(dir.resolve("other-key.pem"), Ed25519Pem.publicKeyPem(OTHER_KEY.publicKey().raw()));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
