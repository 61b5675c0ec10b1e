package io.mcpledger.app.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.ProtocolVersions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference MCP edge (contract section 16): MCP Streamable HTTP in front of one stdio MCP server, asking the ledger
 * before it forwards any {@code tools/call}. It serves both eras: clients of the initialize era (a ledger session per
 * MCP session, resumed under the same id after an edge restart) and sessionless {@code 2026-07-28} clients (each
 * {@code tools/call} a ledger call of the client's stream, contract section 15). Everything else is passed through to
 * the stdio server. The edge keeps nothing on disk: which sessions it serves is memory, and a restarted edge resumes
 * them from the ledger when their clients come back.
 *
 * <p>This class holds the protocol; {@link McpController} only carries HTTP in and out, so tests and other servers can
 * drive it directly.
 */
public final class McpEdge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(McpEdge.class);
    /** The revision without sessions. */
    static final String SESSIONLESS = ProtocolVersions.SESSIONLESS;
    /** The newest initialize-era version: what an initialize asking for anything else is answered with. */
    static final String NEWEST_SESSION_VERSION = "2025-11-25";
    /** Where a tool's result carries its receipt. */
    public static final String RECEIPT_META = "io.mcpledger/receipt";
    static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    static final String EXPIRED_MESSAGE = "MCP session expired and must be re-initialized";
    /** JSON-RPC codes: the ledger's refusals (as MCP gateways use it), bad requests, internal errors. */
    static final int LEDGER_REFUSED = -32001;
    static final int INVALID_REQUEST = -32600;
    static final int INVALID_PARAMS = -32602;
    static final int INTERNAL_ERROR = -32603;
    static final int PARSE_ERROR = -32700;
    static final int HEADER_MISMATCH = -32020;

    /** An HTTP answer: status, headers, and a JSON body (null for none). */
    public record Response(int status, Map<String, String> headers, JsonNode body) {
        static Response of(int status, JsonNode body) {
            return new Response(status, Map.of(), body);
        }

        static Response accepted() {
            return new Response(202, Map.of(), null);
        }

        Response with(String header, String value) {
            Map<String, String> headers = new LinkedHashMap<>(this.headers);
            headers.put(header, value);
            return new Response(status, headers, body);
        }
    }

    /** The request's MCP headers, as the client sent them (null when absent). */
    public record Headers(String authorization, String sessionId, String protocolVersion, String method, String name) {
        /** A request's headers without the {@code 2026-07-28} request metadata ({@code Mcp-Method}, {@code Mcp-Name}). */
        public Headers(String authorization, String sessionId, String protocolVersion) {
            this(authorization, sessionId, protocolVersion, null, null);
        }
    }

    /** Where a {@code tools/call}'s admission and outcome go: a ledger session, or the client's stream. */
    private interface CallPath {
        LedgerClient.Reply admit(String requestId, String tool, String argumentsSha256, JsonNode jsonrpcId)
                throws LedgerClient.Unreachable;

        LedgerClient.Reply outcome(String requestId, ObjectNode outcome) throws LedgerClient.Unreachable;

        /** What a ledger refusal of the call itself (404, 410, 403...) answers the client. */
        Response refusal(LedgerClient.Reply reply, JsonNode id);
    }

    private final EdgeSettings settings;
    private final LedgerClient ledger;
    private final StdioServer server;
    private final String serverId;
    private final String incarnation;
    private final SecureRandom random = new SecureRandom();
    /** The sessions this edge serves, each with the SHA-256 of the token it belongs to. */
    private final Map<String, String> sessions = new ConcurrentHashMap<>();

    private McpEdge(EdgeSettings settings, LedgerClient ledger, StdioServer server, String serverId, String incarnation) {
        this.settings = settings;
        this.ledger = ledger;
        this.server = server;
        this.serverId = serverId;
        this.incarnation = incarnation;
    }

    /**
     * Starts the stdio server and initializes it, names the server, and announces a new incarnation to the ledger
     * (which marks {@code unknown} the sessionless calls an earlier run of this edge left without an outcome). An
     * {@link IOException} with one line when any of it fails; nothing is left running then.
     */
    public static McpEdge start(EdgeSettings settings) throws IOException {
        StdioServer server = new StdioServer(settings.command(), settings.callTimeout());
        server.start();
        try {
            String serverId = settings.serverId();
            if (serverId == null) {
                serverId = server.initializeResult().path("serverInfo").path("name").asText("");
                if (!Identifiers.isIdentifier(serverId)) {
                    throw new IOException("the stdio server's name \"" + serverId + "\" cannot be a ledger serverId"
                            + " (1 to 256 visible ASCII characters): name it with --server-id");
                }
            }
            byte[] bytes = new byte[16];
            new SecureRandom().nextBytes(bytes);
            String incarnation = Hex.encode(bytes);
            LedgerClient ledger = new LedgerClient(settings.ledger(), settings.ledgerCredential());
            LedgerClient.Reply announced = ledger.post("/v1/edges/" + settings.edgeId() + "/incarnations", null,
                    Canonical.JSON.createObjectNode().put("incarnation", incarnation));
            if (!announced.ok()) {
                throw new IOException("the ledger at " + settings.ledger() + " refused this edge's incarnation ("
                        + announced.status() + "): " + announced.message());
            }
            int unknown = announced.body().path("unknown").size();
            if (unknown > 0) {
                LOG.info("The ledger marked {} sessionless calls an earlier run of edge {} left without an outcome as"
                        + " unknown", unknown, settings.edgeId());
            }
            return new McpEdge(settings, ledger, server, serverId, incarnation);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The serverId this edge names in the ledger's calls. */
    public String serverId() {
        return serverId;
    }

    /** This run's incarnation, as the ledger was told. */
    public String incarnation() {
        return incarnation;
    }

    // ------------------------------------------------------------------------------------------------ POST /mcp

    /** One JSON-RPC message POSTed to {@code /mcp}. */
    public Response post(Headers headers, byte[] body) {
        String token = authenticate(headers.authorization());
        if (token == null) {
            return unauthorized();
        }
        JsonNode message;
        try {
            message = Canonical.JSON.readTree(body);
        } catch (IOException e) {
            return Response.of(400, error(null, PARSE_ERROR, "Parse error: the body is not JSON"));
        }
        if (message == null || message.isArray()) {
            return Response.of(400, error(null, INVALID_REQUEST, "Invalid Request: send one JSON-RPC message per POST;"
                    + " the edge takes no batches"));
        }
        if (!message.isObject() || !"2.0".equals(message.path("jsonrpc").asText())) {
            return Response.of(400, error(null, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"));
        }
        JsonNode id = message.get("id");
        String method = message.path("method").isTextual() ? message.path("method").asText() : null;
        if (method == null) {
            return Response.accepted(); // a response to a request: the edge sends its clients none
        }
        if (SESSIONLESS.equals(headers.protocolVersion())) {
            return sessionless(token, headers, message, id, method);
        }
        return inSession(token, headers, message, id, method);
    }

    private Response sessionless(String token, Headers headers, JsonNode message, JsonNode id, String method) {
        JsonNode params = message.path("params");
        JsonNode meta = params.path("_meta");
        String version = meta.path(META_VERSION).asText(null);
        if (!SESSIONLESS.equals(version)) {
            return Response.of(400, error(id, HEADER_MISMATCH, "MCP-Protocol-Version is " + SESSIONLESS + " but"
                    + " params._meta[\"" + META_VERSION + "\"] is " + (version == null ? "absent" : version)
                    + "; the two must name the same version"));
        }
        String mismatch = RequestMetadata.mismatch(method, params, id != null, headers.method(), headers.name());
        if (mismatch != null) {
            return Response.of(400, error(id, HEADER_MISMATCH, mismatch));
        }
        if (id == null) {
            return Response.accepted();
        }
        return switch (method) {
            case "server/discover" -> Response.of(200, result(id, discover()));
            case "tools/call" -> toolsCall(new ClientCalls(token, meta.path(META_CLIENT_INFO)), id, params, true);
            default -> passThrough(id, method, message.get("params"), true);
        };
    }

    private Response inSession(String token, Headers headers, JsonNode message, JsonNode id, String method) {
        if ("initialize".equals(method)) {
            return initialize(token, id, message.path("params"));
        }
        String sessionId = headers.sessionId();
        if (sessionId == null) {
            return Response.of(400, error(id, INVALID_REQUEST, "Bad Request: no Mcp-Session-Id; send initialize first"
                    + " (or MCP-Protocol-Version: " + SESSIONLESS + " for a request without a session)"));
        }
        Response refused = requireSession(token, sessionId, headers.protocolVersion(), id);
        if (refused != null) {
            return refused;
        }
        if (id == null) {
            return Response.accepted(); // notifications/initialized and the like: the edge initialized the server itself
        }
        if ("tools/call".equals(method)) {
            return toolsCall(new SessionCalls(token, sessionId), id, message.path("params"), false);
        }
        return passThrough(id, method, message.get("params"), false);
    }

    /**
     * {@code initialize}: a new ledger session, whose id is the MCP session's. A version the ledger's sessions do not
     * take ({@code 2026-07-28} among them) is answered with the newest one they do.
     */
    private Response initialize(String token, JsonNode id, JsonNode params) {
        if (id == null) {
            return Response.of(400, error(null, INVALID_REQUEST, "Invalid Request: initialize is a request, with an id"));
        }
        String asked = params.path("protocolVersion").asText("");
        String version = ProtocolVersions.SUPPORTED.contains(asked) ? asked : NEWEST_SESSION_VERSION;
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", settings.clients().get(token));
        body.put("serverId", serverId);
        body.put("protocolVersion", version);
        ObjectNode clientInfo = clientInfo(params.path("clientInfo"));
        if (clientInfo != null) {
            body.set("clientInfo", clientInfo);
        }
        body.set("edge", edge());
        LedgerClient.Reply reply;
        try {
            reply = ledger.post("/v1/sessions", token, body);
        } catch (LedgerClient.Unreachable e) {
            return unreachable(id, e);
        }
        if (!reply.ok()) {
            return ledgerRefusal(reply, id, null);
        }
        String sessionId = reply.body().path("session").path("id").asText();
        sessions.put(sessionId, token);
        JsonNode initialized = server.initializeResult();
        ObjectNode result = Canonical.JSON.createObjectNode();
        result.put("protocolVersion", version);
        result.set("capabilities", initialized.path("capabilities").deepCopy());
        result.set("serverInfo", initialized.path("serverInfo").deepCopy());
        if (initialized.hasNonNull("instructions")) {
            result.set("instructions", initialized.get("instructions"));
        }
        return Response.of(200, result(id, result)).with("Mcp-Session-Id", sessionId);
    }

    /**
     * A session id this edge does not serve yet (it restarted, or another edge opened it) is resumed in the ledger
     * under the same id; one it serves for another token is {@code 404}, as the ledger would answer. Null when the
     * request may go on.
     */
    private Response requireSession(String token, String sessionId, String protocolVersion, JsonNode id) {
        String owner = sessions.get(sessionId);
        if (owner != null) {
            return owner.equals(token) ? null : Response.of(404, error(id, LEDGER_REFUSED, "session not found"));
        }
        if (!isPathSegment(sessionId)) {
            return Response.of(404, error(id, LEDGER_REFUSED, "session not found"));
        }
        ObjectNode body = Canonical.JSON.createObjectNode();
        if (protocolVersion != null) {
            body.put("protocolVersion", protocolVersion);
        }
        body.set("edge", edge());
        LedgerClient.Reply reply;
        try {
            reply = ledger.post("/v1/sessions/" + sessionId + "/resume", token, body);
        } catch (LedgerClient.Unreachable e) {
            return unreachable(id, e);
        }
        if (!reply.ok()) {
            return ledgerRefusal(reply, id, sessionId);
        }
        sessions.put(sessionId, token);
        LOG.debug("Resumed session {} from the ledger", sessionId);
        return null;
    }

    // ------------------------------------------------------------------------------------------------ tools/call

    /**
     * A {@code tools/call}: asked of the ledger under a fresh requestId with the SHA-256 of the JCS of its arguments;
     * refused, it is never forwarded and the client gets an {@code isError} result with the refusal and its receipt;
     * admitted, it is forwarded, its outcome recorded (with the SHA-256 of the JCS of the result as the server wrote it)
     * before the client gets the result with the receipt in {@code _meta}. A server that dies or stays silent leaves
     * the outcome {@code unknown}, recorded, and is restarted.
     */
    private Response toolsCall(CallPath path, JsonNode id, JsonNode params, boolean sessionless) {
        if (!params.path("name").isTextual()) {
            return Response.of(200, error(id, INVALID_PARAMS, "Invalid params: tools/call needs params.name"));
        }
        String tool = params.path("name").asText();
        if (!Identifiers.isIdentifier(tool)) {
            return Response.of(200, error(id, INVALID_PARAMS, "Invalid params: the ledger names tools by 1 to 256"
                    + " visible ASCII characters, not \"" + tool + "\""));
        }
        JsonNode arguments = params.path("arguments").isObject() ? params.get("arguments")
                : Canonical.JSON.createObjectNode();
        String argumentsSha256 = Sha256.hex(Canonical.jcsBytes(arguments));
        String requestId = requestId();
        LedgerClient.Reply decision;
        try {
            decision = path.admit(requestId, tool, argumentsSha256, id);
        } catch (LedgerClient.Unreachable e) {
            return unreachable(id, e);
        }
        if (!decision.ok()) {
            return path.refusal(decision, id);
        }
        String receiptId = decision.body().path("receipt").path("id").asText();
        if (!"admitted".equals(decision.body().path("decision").asText())) {
            ObjectNode result = Canonical.JSON.createObjectNode();
            result.putArray("content").addObject().put("type", "text")
                    .put("text", decision.body().path("reason").path("message").asText());
            result.put("isError", true);
            putReceipt(result, receiptId, requestId);
            return Response.of(200, result(id, complete(result, sessionless)));
        }
        long generation = server.generation();
        JsonNode answer;
        try {
            answer = server.request("tools/call", params, settings.callTimeout());
        } catch (TimeoutException e) {
            return unknown(path, id, requestId, receiptId, generation, "the stdio server did not answer within "
                    + settings.callTimeout().toSeconds() + " s");
        } catch (IOException e) {
            return unknown(path, id, requestId, receiptId, generation, e.getMessage());
        }
        if (answer.path("result").isObject()) {
            JsonNode result = answer.get("result");
            ObjectNode outcome = Canonical.JSON.createObjectNode();
            outcome.put("status", result.path("isError").asBoolean(false) ? "error" : "ok");
            outcome.put("resultSha256", Sha256.hex(Canonical.jcsBytes(result)));
            record(path, requestId, outcome);
            ObjectNode returned = result.deepCopy();
            putReceipt(returned, receiptId, requestId);
            return Response.of(200, result(id, complete(returned, sessionless)));
        }
        JsonNode failure = answer.path("error");
        ObjectNode outcome = Canonical.JSON.createObjectNode();
        outcome.put("status", "error");
        outcome.put("resultSha256", Sha256.hex(Canonical.jcsBytes(failure)));
        outcome.put("detail", truncate("the stdio server answered JSON-RPC error " + failure.path("code").asText()
                + ": " + failure.path("message").asText(), 4096));
        record(path, requestId, outcome);
        ObjectNode forwarded = Canonical.JSON.createObjectNode().put("jsonrpc", "2.0");
        forwarded.set("id", id);
        forwarded.set("error", failure.deepCopy());
        return Response.of(200, forwarded);
    }

    /** A call whose outcome cannot be known: recorded {@code unknown}, the server restarted, the client told. */
    private Response unknown(CallPath path, JsonNode id, String requestId, String receiptId, long generation,
                             String why) {
        ObjectNode outcome = Canonical.JSON.createObjectNode();
        outcome.put("status", "unknown");
        outcome.put("detail", truncate(why, 4096));
        record(path, requestId, outcome);
        try {
            server.restart(generation, why);
        } catch (IOException e) {
            LOG.error("The stdio server could not be restarted; requests fail until it can: {}", e.getMessage());
        }
        ObjectNode answer = error(id, INTERNAL_ERROR, "the outcome of this tools/call is unknown (" + why + "); the"
                + " ledger records it as unknown: inspect request " + requestId + " before any retry");
        ((ObjectNode) answer.get("error")).putObject("data").put("requestId", requestId).put("receiptId", receiptId);
        return Response.of(200, answer);
    }

    /**
     * Records an outcome before the client is answered. When the ledger cannot be reached the client still gets what
     * the server did; the call stays pending in the ledger, and this edge's next incarnation (or the session's next
     * resume) marks it unknown.
     */
    private void record(CallPath path, String requestId, ObjectNode outcome) {
        try {
            LedgerClient.Reply reply = path.outcome(requestId, outcome);
            if (!reply.ok()) {
                LOG.warn("The ledger refused the outcome of {} ({}): {}", requestId, reply.status(), reply.message());
            }
        } catch (LedgerClient.Unreachable e) {
            LOG.warn("The outcome of {} could not be recorded; the call stays pending in the ledger until this edge's"
                    + " next start marks it unknown: {}", requestId, e.getMessage());
        }
    }

    private final class SessionCalls implements CallPath {
        private final String token;
        private final String sessionId;

        SessionCalls(String token, String sessionId) {
            this.token = token;
            this.sessionId = sessionId;
        }

        @Override
        public LedgerClient.Reply admit(String requestId, String tool, String argumentsSha256, JsonNode jsonrpcId)
                throws LedgerClient.Unreachable {
            return ledger.post("/v1/sessions/" + sessionId + "/calls", token,
                    callBody(requestId, tool, argumentsSha256, jsonrpcId));
        }

        @Override
        public LedgerClient.Reply outcome(String requestId, ObjectNode outcome) throws LedgerClient.Unreachable {
            return ledger.post("/v1/sessions/" + sessionId + "/calls/" + requestId + "/outcome", token, outcome);
        }

        @Override
        public Response refusal(LedgerClient.Reply reply, JsonNode id) {
            return ledgerRefusal(reply, id, sessionId);
        }
    }

    private final class ClientCalls implements CallPath {
        private final String token;
        private final JsonNode clientInfo;

        ClientCalls(String token, JsonNode clientInfo) {
            this.token = token;
            this.clientInfo = clientInfo;
        }

        @Override
        public LedgerClient.Reply admit(String requestId, String tool, String argumentsSha256, JsonNode jsonrpcId)
                throws LedgerClient.Unreachable {
            ObjectNode body = callBody(requestId, tool, argumentsSha256, jsonrpcId);
            body.put("principal", settings.clients().get(token));
            body.put("serverId", serverId);
            body.put("protocolVersion", SESSIONLESS);
            ObjectNode info = clientInfo(clientInfo);
            if (info != null) {
                body.set("clientInfo", info);
            }
            body.set("edge", edge());
            return ledger.post("/v1/calls", token, body);
        }

        @Override
        public LedgerClient.Reply outcome(String requestId, ObjectNode outcome) throws LedgerClient.Unreachable {
            return ledger.post("/v1/calls/" + requestId + "/outcome", token, outcome);
        }

        @Override
        public Response refusal(LedgerClient.Reply reply, JsonNode id) {
            return Response.of(reply.status(), error(id, LEDGER_REFUSED, reply.message()));
        }
    }

    private ObjectNode callBody(String requestId, String tool, String argumentsSha256, JsonNode jsonrpcId) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("requestId", requestId);
        body.put("server", serverId);
        body.put("tool", tool);
        body.put("operation", "invoke");
        body.put("argumentsSha256", argumentsSha256);
        if (jsonrpcId != null && ((jsonrpcId.isTextual() && !jsonrpcId.asText().isEmpty()
                && jsonrpcId.asText().length() <= Identifiers.MAX_LENGTH)
                || (jsonrpcId.isIntegralNumber() && Receipt.isSafeInteger(jsonrpcId)))) {
            body.set("jsonrpcId", jsonrpcId);
        }
        return body;
    }

    // ------------------------------------------------------------------------------------------------ the rest

    /** Anything but initialize and tools/call: to the stdio server and back, under the client's own id. */
    private Response passThrough(JsonNode id, String method, JsonNode params, boolean sessionless) {
        long generation = server.generation();
        JsonNode answer;
        try {
            answer = server.request(method, params, settings.callTimeout());
        } catch (TimeoutException | IOException e) {
            String why = e instanceof TimeoutException ? "the stdio server did not answer within "
                    + settings.callTimeout().toSeconds() + " s" : e.getMessage();
            if (!server.alive()) {
                try {
                    server.restart(generation, why);
                } catch (IOException restart) {
                    LOG.error("The stdio server could not be restarted: {}", restart.getMessage());
                }
            }
            return Response.of(200, error(id, INTERNAL_ERROR, "the MCP server did not answer " + method + ": " + why));
        }
        ObjectNode reply = answer.deepCopy();
        reply.set("id", id);
        if (sessionless && reply.path("result").isObject()) {
            complete((ObjectNode) reply.get("result"), true);
        }
        return Response.of(200, reply);
    }

    /** {@code server/discover} of {@code 2026-07-28}, answered from the stdio server's initialize. */
    private ObjectNode discover() {
        JsonNode initialized = server.initializeResult();
        ObjectNode result = Canonical.JSON.createObjectNode();
        result.put("resultType", "complete");
        result.putArray("supportedVersions").add(SESSIONLESS);
        result.set("capabilities", initialized.path("capabilities").deepCopy());
        result.putObject("_meta").set("io.modelcontextprotocol/serverInfo", initialized.path("serverInfo").deepCopy());
        if (initialized.hasNonNull("instructions")) {
            result.set("instructions", initialized.get("instructions"));
        }
        return result;
    }

    /** {@code DELETE /mcp}: ends the ledger session. */
    public Response delete(Headers headers) {
        String token = authenticate(headers.authorization());
        if (token == null) {
            return unauthorized();
        }
        if (SESSIONLESS.equals(headers.protocolVersion())) {
            return methodNotAllowed();
        }
        String sessionId = headers.sessionId();
        if (sessionId == null) {
            return Response.of(400, error(null, INVALID_REQUEST, "Bad Request: DELETE needs the Mcp-Session-Id to end"));
        }
        String owner = sessions.get(sessionId);
        if ((owner != null && !owner.equals(token)) || !isPathSegment(sessionId)) {
            return Response.of(404, error(null, LEDGER_REFUSED, "session not found"));
        }
        LedgerClient.Reply reply;
        try {
            reply = ledger.delete("/v1/sessions/" + sessionId, token);
        } catch (LedgerClient.Unreachable e) {
            return unreachable(null, e);
        }
        if (!reply.ok()) {
            return ledgerRefusal(reply, null, sessionId);
        }
        sessions.remove(sessionId);
        return new Response(200, Map.of(), null);
    }

    /** {@code GET /mcp}: the edge opens no stream of server messages. */
    public Response get(Headers headers) {
        String token = authenticate(headers.authorization());
        return token == null ? unauthorized() : methodNotAllowed();
    }

    private static Response methodNotAllowed() {
        return Response.of(405, error(null, INVALID_REQUEST, "Method Not Allowed: the edge takes POST (and DELETE of a"
                + " session); it opens no stream of server messages")).with("Allow", "POST, DELETE");
    }

    /** The SHA-256 of the bearer token when it is one of {@code --clients}; else null. */
    private String authenticate(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String sha = Sha256.hex(authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8));
        return settings.clients().containsKey(sha) ? sha : null;
    }

    private static Response unauthorized() {
        return Response.of(401, error(null, LEDGER_REFUSED, "Unauthorized: send Authorization: Bearer <token> of a"
                + " client this edge knows")).with("WWW-Authenticate", "Bearer");
    }

    /**
     * A ledger refusal of a session request, as the client hears it: 404 stays 404, 410 becomes
     * {@code --expired-status} with MCP's message, 403 stays 403; each with the ledger's message in a JSON-RPC error.
     * A session the ledger no longer serves ({@code sessionId}, null for none) is forgotten here too.
     */
    private Response ledgerRefusal(LedgerClient.Reply reply, JsonNode id, String sessionId) {
        if (sessionId != null && (reply.status() == 404 || reply.status() == 410)) {
            sessions.remove(sessionId);
        }
        if (reply.status() == 410) {
            return Response.of(settings.expiredStatus(), error(id, LEDGER_REFUSED, EXPIRED_MESSAGE));
        }
        Response response = Response.of(reply.status(), error(id, LEDGER_REFUSED, reply.message()));
        return reply.status() == 503 ? response.with("Retry-After", "1") : response;
    }

    private static Response unreachable(JsonNode id, LedgerClient.Unreachable e) {
        LOG.warn("The ledger could not be asked: {}", e.getMessage());
        return Response.of(503, error(id, INTERNAL_ERROR, "the ledger could not be asked, so nothing was forwarded;"
                + " try again")).with("Retry-After", "1");
    }

    private ObjectNode edge() {
        return Canonical.JSON.createObjectNode().put("id", settings.edgeId()).put("incarnation", incarnation);
    }

    /** The ledger's clientInfo from MCP's: name and version, when both are text it can hold; else none. */
    private static ObjectNode clientInfo(JsonNode info) {
        JsonNode name = info.path("name");
        JsonNode version = info.path("version");
        if (!name.isTextual() || !version.isTextual() || name.asText().length() > 256 || version.asText().length() > 256
                || !Identifiers.isWellFormedText(name.asText()) || !Identifiers.isWellFormedText(version.asText())) {
            return null;
        }
        return Canonical.JSON.createObjectNode().put("name", name.asText()).put("version", version.asText());
    }

    /** An id the ledger can take and that stays one segment of its paths as it is. */
    private static boolean isPathSegment(String id) {
        return Identifiers.isIdentifier(id) && id.chars().noneMatch(c -> c == '/' || c == '%' || c == '?' || c == '#');
    }

    private String requestId() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return "call-" + Hex.encode(bytes);
    }

    private static void putReceipt(ObjectNode result, String receiptId, String requestId) {
        JsonNode meta = result.get("_meta");
        ObjectNode target = meta instanceof ObjectNode m ? m : result.putObject("_meta");
        target.putObject(RECEIPT_META).put("receiptId", receiptId).put("requestId", requestId);
    }

    /** A {@code 2026-07-28} result says it is complete ({@code resultType}); an older one is left as it is. */
    private static ObjectNode complete(ObjectNode result, boolean sessionless) {
        if (sessionless && !result.has("resultType")) {
            result.put("resultType", "complete");
        }
        return result;
    }

    static ObjectNode result(JsonNode id, JsonNode result) {
        ObjectNode message = Canonical.JSON.createObjectNode().put("jsonrpc", "2.0");
        message.set("id", id);
        message.set("result", result);
        return message;
    }

    static ObjectNode error(JsonNode id, int code, String text) {
        ObjectNode message = Canonical.JSON.createObjectNode().put("jsonrpc", "2.0");
        message.set("id", id == null ? Canonical.JSON.nullNode() : id);
        message.putObject("error").put("code", code).put("message", text);
        return message;
    }

    private static String truncate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max);
    }

    @Override
    public void close() {
        server.close();
    }

    /** The sessions served now, for tests. */
    List<String> sessions() {
        return List.copyOf(sessions.keySet());
    }
}
