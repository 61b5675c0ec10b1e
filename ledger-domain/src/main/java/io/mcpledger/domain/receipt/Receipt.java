package io.mcpledger.domain.receipt;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.log.StrictBase64;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * A signed receipt: its exact JCS line (the log leaf, the durable truth) and the fields read from it.
 * Instances are only made by {@link ReceiptSigner} or by {@link #parse}, so the line is always canonical.
 *
 * <p>Projections keep every call's receipts for as long as the ledger runs, so a receipt keeps only its line and
 * the scalar fields folds read; {@link #body()} and the other members are read back from the line when asked
 * (a few microseconds, off the admission path). Keeping the parsed tree too cost about 2 KB a receipt and
 * lengthened every garbage-collection pause.
 */
public final class Receipt {
    /** The top-level names a receipt may have, sorted as canonical JSON orders them, and their indexes. */
    private static final String[] NAMES =
            {"at", "body", "client", "id", "keyId", "kind", "ledger", "prev", "request", "seq", "session", "sig", "v"};
    private static final Set<String> FIELDS = Set.of(NAMES);

    private final String line;
    private final ReceiptKind kind;
    private final Instant at;
    private final String id;
    private final String session;
    private final String client;
    private final long seq;
    private final String prev;
    private final String request;
    private final String keyId;
    private final String ledger;
    private volatile String hash;

    /** The last origin read: every receipt of a log names the same one, so they share one string. */
    private static volatile String lastLedger = "";

    /** How every line's top-level {@code sig} member starts, and how every line ends ({@code v} is always 1). */
    private static final String SIG_MEMBER = ",\"sig\":\"";
    private static final String LINE_END = "\",\"v\":1}";

    private Receipt(String line, ObjectNode json, ReceiptKind kind, Instant at) {
        this(line, kind, at, json.get("id").textValue(), textOrNull(json, "session"), textOrNull(json, "client"),
                json.has("seq") ? json.get("seq").asLong() : 0, textOrNull(json, "prev"), textOrNull(json, "request"),
                json.get("keyId").textValue(), json.get("ledger").textValue());
    }

    private Receipt(String line, ReceiptKind kind, Instant at, String id, String session, String client, long seq,
            String prev, String request, String keyId, String ledger) {
        this.line = line;
        this.kind = kind;
        this.at = at;
        this.id = id;
        this.session = session;
        this.client = client;
        this.seq = seq;
        this.prev = prev;
        this.request = request;
        this.keyId = keyId;
        String shared = lastLedger;
        if (shared.equals(ledger)) {
            this.ledger = shared;
        } else {
            lastLedger = ledger;
            this.ledger = ledger;
        }
    }

    private static String textOrNull(ObjectNode json, String field) {
        JsonNode value = json.get(field);
        return value == null ? null : value.textValue();
    }

    /** The line as a tree again; the line was validated when this receipt was made, so it parses. */
    private ObjectNode tree() {
        try {
            return (ObjectNode) Canonical.parse(line);
        } catch (IOException e) {
            throw new IllegalStateException("a validated receipt line no longer parses: " + e.getMessage(), e);
        }
    }

    /** Wraps a tree the signer has just produced; skips re-validation. */
    static Receipt signed(String line, ObjectNode json, ReceiptKind kind, Instant at) {
        return new Receipt(line, json, kind, at);
    }

    /**
     * Reads one log line: it must be a JSON object in JCS form with exactly the fields of contract section 6,
     * no nulls and no fractional numbers. The signature is not checked here (see {@link ReceiptVerifier}).
     */
    public static Receipt parse(String line) throws InvalidReceiptException {
        Receipt receipt = fromMembers(line);
        return receipt != null ? receipt : parseTree(line);
    }

    /**
     * Reads a log line as stored, in UTF-8, as {@link #parse(String)} does. The hash of an ASCII line (most are) is
     * taken from these bytes at once, which are then the line's own encoding, so that the fold that asks for it next
     * does not encode the line again.
     */
    public static Receipt parse(byte[] utf8) throws InvalidReceiptException {
        Receipt receipt = parse(new String(utf8, StandardCharsets.UTF_8));
        if (isAscii(utf8)) {
            receipt.hash = Sha256.hex(utf8);
        }
        return receipt;
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The fast reading: one pass of {@link CanonicalForm} checks the form and hands over the top-level members, and the
     * rules of {@link #parseTree} are applied to them. Null whenever any rule fails, so that parseTree, the reference
     * reading, says exactly why (ReceiptParseTest holds both to the same answers).
     */
    static Receipt fromMembers(String line) {
        CanonicalForm.Members m = CanonicalForm.members(line, NAMES);
        if (m == null) {
            return null;
        }
        String id = text(m, ID);
        String atText = text(m, AT);
        String ledger = ledger(line, m);
        String keyId = text(m, KEY_ID);
        if (m.kind(V) != CanonicalForm.Kind.INTEGER || m.number(V) != 1 || id == null
                || !Identifiers.isVisibleAscii(id, MAX_ID_LENGTH) || m.kind(KIND) != CanonicalForm.Kind.STRING
                || !m.literal(KIND) || atText == null || ledger == null
                || m.kind(BODY) != CanonicalForm.Kind.OBJECT || !Hex.isLowerHex(keyId, 8)
                || m.kind(SIG) != CanonicalForm.Kind.STRING || !m.literal(SIG)
                || !StrictBase64.isCanonical(line, m.start(SIG), m.end(SIG), 64)) {
            // A sig with an escape holds a character base64 has not: never a signature.
            return null;
        }
        // A kind with an escape is no wire name.
        ReceiptKind kind = ReceiptKind.fromWire(line, m.start(KIND), m.end(KIND));
        if (kind == null) {
            return null;
        }
        Instant at;
        try {
            at = Timestamps.parse(atText);
        } catch (IllegalArgumentException e) {
            return null;
        }
        String session = text(m, SESSION);
        String client = text(m, CLIENT);
        String prev = text(m, PREV);
        long seq = 0;
        if (m.has(SESSION) || m.has(CLIENT)) {
            boolean streamOk = m.has(CLIENT) ? !m.has(SESSION) && isCallKind(kind) && Hex.isLowerHex(client, 64)
                    : kind.sessionScoped() && session != null;
            if (!streamOk || m.kind(SEQ) != CanonicalForm.Kind.INTEGER || m.number(SEQ) < 1) {
                return null;
            }
            seq = m.number(SEQ);
            if (seq == 1 ? m.has(PREV) : !Hex.isLowerHex(prev, 64)) {
                return null;
            }
        } else if (kind.sessionScoped() || m.has(SEQ) || m.has(PREV)) {
            return null;
        }
        String request = text(m, REQUEST);
        if (isCallKind(kind) != m.has(REQUEST) || (m.has(REQUEST) && request == null)) {
            return null;
        }
        return new Receipt(line, kind, at, id, session, client, seq, prev, request, keyId, ledger);
    }

    /** The index of each name in {@link #NAMES}. */
    private static final int AT = 0;
    private static final int BODY = 1;
    private static final int CLIENT = 2;
    private static final int ID = 3;
    private static final int KEY_ID = 4;
    private static final int KIND = 5;
    private static final int LEDGER = 6;
    private static final int PREV = 7;
    private static final int REQUEST = 8;
    private static final int SEQ = 9;
    private static final int SESSION = 10;
    private static final int SIG = 11;
    private static final int V = 12;

    /** A member that is a non-empty string, or null. */
    private static String text(CanonicalForm.Members members, int name) {
        if (members.kind(name) != CanonicalForm.Kind.STRING) {
            return null;
        }
        String text = members.text(name);
        return text.isEmpty() ? null : text;
    }

    /** The ledger member as {@link #text}, as the last origin read when it is that one (no copy is made then). */
    private static String ledger(String line, CanonicalForm.Members members) {
        String last = lastLedger;
        if (members.kind(LEDGER) == CanonicalForm.Kind.STRING && members.literal(LEDGER) && !last.isEmpty()
                && members.end(LEDGER) - members.start(LEDGER) == last.length()
                && line.startsWith(last, members.start(LEDGER))) {
            return last;
        }
        return text(members, LEDGER);
    }

    /** The reference reading, through a Jackson tree: slower, and says exactly what is wrong. */
    static Receipt parseTree(String line) throws InvalidReceiptException {
        JsonNode tree;
        try {
            tree = Canonical.parse(line);
        } catch (IOException e) {
            String why = e instanceof com.fasterxml.jackson.core.JsonProcessingException json
                    ? json.getOriginalMessage() : e.getMessage();
            throw new InvalidReceiptException("not JSON: " + why, e);
        }
        if (!(tree instanceof ObjectNode json)) {
            throw new InvalidReceiptException("not a JSON object");
        }
        checkValues(json, "receipt");
        if (!CanonicalForm.isCanonical(line)) {
            throw new InvalidReceiptException("not in canonical (RFC 8785) form");
        }
        Iterator<String> names = json.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new InvalidReceiptException("unknown field '" + name + "'");
            }
        }
        if (!json.path("v").isIntegralNumber() || json.get("v").asLong() != 1) {
            throw new InvalidReceiptException("'v' must be 1");
        }
        String id = requireText(json, "id");
        if (!Identifiers.isVisibleAscii(id, MAX_ID_LENGTH)) {
            throw new InvalidReceiptException("'id' must be 1 to 128 visible ASCII characters");
        }
        ReceiptKind kind = ReceiptKind.fromWire(requireText(json, "kind"))
                .orElseThrow(() -> new InvalidReceiptException("unknown kind '" + json.get("kind").asText() + "'"));
        Instant at;
        try {
            at = Timestamps.parse(requireText(json, "at"));
        } catch (IllegalArgumentException e) {
            throw new InvalidReceiptException("'at': " + e.getMessage(), e);
        }
        requireText(json, "ledger");
        if (json.has("client")) {
            if (!isCallKind(kind)) {
                throw new InvalidReceiptException(kind.wire() + " receipts carry no 'client': only call receipts"
                        + " belong to a client stream");
            }
            if (json.has("session")) {
                throw new InvalidReceiptException("a receipt carries 'session' or 'client', never both");
            }
            if (!json.path("client").isTextual() || !Hex.isLowerHex(json.path("client").asText(), 64)) {
                throw new InvalidReceiptException("'client' must be a tokenRef: 64 lowercase hex characters");
            }
        }
        if (kind.sessionScoped() || json.has("client")) {
            if (!json.has("client")) {
                requireText(json, "session");
            }
            if (!json.path("seq").isIntegralNumber() || json.get("seq").asLong() < 1) {
                throw new InvalidReceiptException("'seq' must be an integer of at least 1");
            }
            long seq = json.get("seq").asLong();
            if (seq == 1 && json.has("prev")) {
                throw new InvalidReceiptException("'prev' must be absent when 'seq' is 1");
            }
            if (seq > 1 && (!json.path("prev").isTextual() || !Hex.isLowerHex(json.path("prev").asText(), 64))) {
                throw new InvalidReceiptException("'prev' must be 64 lowercase hex characters when 'seq' is above 1");
            }
        } else if (json.has("session") || json.has("seq") || json.has("prev")) {
            throw new InvalidReceiptException(kind.wire() + " receipts carry no 'session', 'seq' or 'prev'");
        }
        if (isCallKind(kind) != json.has("request")) {
            throw new InvalidReceiptException(isCallKind(kind) ? "'request' is required on " + kind.wire()
                    : kind.wire() + " receipts carry no 'request'");
        }
        if (json.has("request")) {
            requireText(json, "request");
        }
        if (!json.path("body").isObject()) {
            throw new InvalidReceiptException("'body' must be an object");
        }
        if (!json.path("keyId").isTextual() || !Hex.isLowerHex(json.path("keyId").asText(), 8)) {
            throw new InvalidReceiptException("'keyId' must be 8 lowercase hex characters");
        }
        String sig = requireText(json, "sig");
        byte[] signature = StrictBase64.decode(sig);
        if (signature == null) {
            throw new InvalidReceiptException("'sig' is not padded standard base64 in its one canonical spelling");
        }
        if (signature.length != 64) {
            throw new InvalidReceiptException("'sig' must be a 64-byte Ed25519 signature");
        }
        return new Receipt(line, json, kind, at);
    }

    /** Receipt ids are at most this long (contract section 6). */
    static final int MAX_ID_LENGTH = 128;

    /** The largest integer JCS (IEEE-754 doubles) represents exactly. */
    public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    /** An integer a receipt may hold: JSON integral, within +/-(2^53-1). */
    public static boolean isSafeInteger(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong() && Math.abs(node.asLong()) <= MAX_SAFE_INTEGER;
    }

    static void checkValues(JsonNode node, String path) throws InvalidReceiptException {
        if (node.isNull()) {
            throw new InvalidReceiptException("null at " + path + ": absent values are omitted");
        }
        if (node.isNumber() && !node.isIntegralNumber()) {
            throw new InvalidReceiptException("non-integer number at " + path);
        }
        if (node.isIntegralNumber() && !isSafeInteger(node)) {
            throw new InvalidReceiptException("integer at " + path + " is outside +/-(2^53-1), which JCS cannot keep exact");
        }
        if (node.isTextual() && !Identifiers.isWellFormedText(node.textValue())) {
            throw new InvalidReceiptException("string at " + path + " has an unpaired surrogate, which UTF-8 cannot encode");
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (!Identifiers.isWellFormedText(e.getKey())) {
                    throw new InvalidReceiptException("a member name at " + path + " has an unpaired surrogate");
                }
                checkValues(e.getValue(), path + "." + e.getKey());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkValues(node.get(i), path + "[" + i + "]");
            }
        }
    }

    private static String requireText(ObjectNode json, String field) throws InvalidReceiptException {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new InvalidReceiptException("'" + field + "' must be a non-empty string");
        }
        return value.asText();
    }

    static boolean isCallKind(ReceiptKind kind) {
        return kind.wire().startsWith("call.");
    }

    /** How events store a receipt: as its line, re-validated when read back. */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Receipt fromStored(String line) {
        try {
            return parse(line);
        } catch (InvalidReceiptException e) {
            throw new IllegalArgumentException("stored receipt is invalid: " + e.getMessage(), e);
        }
    }

    /** The exact JCS text of the receipt, signature included: one log line. */
    @JsonValue
    public String line() {
        return line;
    }

    public byte[] lineBytes() {
        return line.getBytes(StandardCharsets.UTF_8);
    }

    /** Lowercase hex SHA-256 of the line: the next receipt's {@code prev} and the session's {@code head}. */
    public String hash() {
        String h = hash;
        if (h == null) {
            h = Sha256.hex(lineBytes());
            hash = h;
        }
        return h;
    }

    public String id() {
        return id;
    }

    public ReceiptKind kind() {
        return kind;
    }

    public Instant at() {
        return at;
    }

    public String ledger() {
        return ledger;
    }

    /** The session id, or null for ledger-wide receipts. */
    public String session() {
        return session;
    }

    /**
     * The client stream's tokenRef (the SHA-256 of the client's token) for a call made without a session (MCP
     * {@code 2026-07-28}), or null: a receipt carries {@code session} or {@code client}, never both.
     */
    public String client() {
        return client;
    }

    /** The 1-based position in the session, or 0 for ledger-wide receipts. */
    public long seq() {
        return seq;
    }

    /** The previous receipt's hash, or null at seq 1 and for ledger-wide receipts. */
    public String prev() {
        return prev;
    }

    /** The requestId of a call receipt, or null. */
    public String request() {
        return request;
    }

    /** The kind-specific fields, read from the line: a fresh tree on every call, so read it once where it is used. */
    public JsonNode body() {
        try (JsonParser parser = bodyParser()) {
            return Canonical.JSON.readTree(parser);
        } catch (IOException e) {
            throw new IllegalStateException("a validated receipt's body no longer parses: " + e.getMessage(), e);
        }
    }

    /**
     * {@code body().path(name).asText()}, without building the body's tree: a scalar member's text, and "" when the
     * member is absent or an object or array. Folds read one member ({@code status}, {@code policy},
     * {@code tokenRef}) of most receipts they apply, so it reads that member where it stands in the line.
     */
    public String bodyText(String name) {
        return CanonicalForm.memberText(line, bodyStart(), name);
    }

    /**
     * The body member {@code name} when its value is a string, without building the body's tree; null when the body
     * has no such member or its value is not a string (read {@link #body()} to tell those apart).
     */
    public String bodyString(String name) {
        return CanonicalForm.memberString(line, bodyStart(), name);
    }

    /**
     * Member {@code inner} of the body's member {@code outer} when {@code outer} is an object and {@code inner} a
     * string in it, without building the body's tree; null otherwise.
     */
    public String bodyString(String outer, String inner) {
        int object = CanonicalForm.memberObject(line, bodyStart(), outer);
        return object < 0 ? null : CanonicalForm.memberString(line, object, inner);
    }

    /** Where the body's opening brace is: the line starts {"at":"<time>","body":{ and a time holds no quote. */
    private int bodyStart() {
        int quote = line.indexOf('"', 7);
        if (quote < 0 || !line.startsWith(",\"body\":{", quote + 1)) {
            throw new IllegalStateException("the second member of a validated receipt line is not the body object");
        }
        return quote + 9;
    }

    /**
     * A parser standing on the body's opening brace. The line is canonical, so it starts {"at":"<time>","body":{
     * and the body is its second member: no search through the line is needed.
     */
    private JsonParser bodyParser() throws IOException {
        JsonParser parser = Canonical.JSON.getFactory().createParser(line);
        for (int i = 0; i < 5; i++) { // {  "at"  <time>  "body"  {
            parser.nextToken();
        }
        if (parser.currentToken() != JsonToken.START_OBJECT || !"body".equals(parser.currentName())) {
            throw new IOException("the second member of the line is not the body object");
        }
        return parser;
    }

    public String keyId() {
        return keyId;
    }

    /** The signature's base64, read from the line's tail (see {@link #signingInput()}). */
    public String sig() {
        int start = line.lastIndexOf(SIG_MEMBER) + SIG_MEMBER.length();
        return line.substring(start, line.length() - LINE_END.length());
    }

    /** The whole receipt as a fresh JSON tree. */
    public ObjectNode toJson() {
        return tree();
    }

    /** What was signed: {@code "mcp-ledger-receipt-v1\n"} followed by the JCS of the receipt without {@code sig}. */
    public byte[] signingInput() {
        // The line is canonical, so its members are sorted: it ends with ,"sig":"<base64>","v":1} and nothing
        // after the top-level "sig" can hold another (only "v" follows). Dropping that member from the line is the
        // JCS of the receipt without sig, with no parse (this is the verifier's hot path).
        int sig = line.lastIndexOf(SIG_MEMBER);
        String unsigned = line.substring(0, sig) + line.substring(line.length() - LINE_END.length() + 1);
        byte[] jcs = unsigned.getBytes(StandardCharsets.UTF_8);
        byte[] input = new byte[ReceiptSigner.DOMAIN.length + jcs.length];
        System.arraycopy(ReceiptSigner.DOMAIN, 0, input, 0, ReceiptSigner.DOMAIN.length);
        System.arraycopy(jcs, 0, input, ReceiptSigner.DOMAIN.length, jcs.length);
        return input;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Receipt other && line.equals(other.line);
    }

    @Override
    public int hashCode() {
        return line.hashCode();
    }

    @Override
    public String toString() {
        return line;
    }
}
