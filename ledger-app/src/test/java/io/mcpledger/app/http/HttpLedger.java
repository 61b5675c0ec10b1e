package io.mcpledger.app.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.app.testing.TestIo;
import java.sql.Connection;
import java.sql.Statement;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The real ledger service in-process (Micronaut, Axon, and H2 on a temporary state directory or a new database on the
 * tests' PostgreSQL server) on a free port, with a hand-moved clock, and a plain HTTP client that speaks to it as an
 * edge, an operator or an auditor would.
 */
final class HttpLedger implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    static final String PROTOCOL = "2025-06-18";
    static final Duration IDLE_EXPIRY = Duration.ofMinutes(30);
    static final String PRICING_POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 300}
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;

    final TestClock clock = new TestClock(T0);
    final Path stateDirectory;
    private final LoadedState state;
    private final Map<Role, String> credentials = new EnumMap<>(Role.class);
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Duration checkpointInterval;
    private LedgerServer server;
    private URI base;

    private final TestDatabases.Kind kind;
    /** The PostgreSQL database of this ledger, or null on H2. */
    private final DatabaseUrl database;

    private HttpLedger(TestDatabases.Kind kind, Path stateDirectory, Duration checkpointInterval) throws Exception {
        this(kind, kind == TestDatabases.Kind.POSTGRESQL ? TestDatabases.newPostgresDatabase() : null, stateDirectory,
                checkpointInterval);
    }

    private HttpLedger(TestDatabases.Kind kind, DatabaseUrl database, Path stateDirectory, Duration checkpointInterval)
            throws Exception {
        this.kind = kind;
        this.database = database;
        this.stateDirectory = stateDirectory;
        this.checkpointInterval = checkpointInterval;
        StateDirectory directory = new StateDirectory(stateDirectory);
        directory.init(null);
        this.state = directory.load(null);
        for (Role role : Role.values()) {
            credentials.put(role, Files.readString(directory.tokenFile(role)).strip());
        }
    }

    /**
     * A ledger on {@code kind} (H2 in {@code dir}, or a new database on the tests' PostgreSQL server) with the pricing
     * policy (quote and discount), a 30-minute idle expiry and room for 10,000 sessions.
     */
    static HttpLedger start(TestDatabases.Kind kind, Path dir) throws Exception {
        return start(kind, dir, PRICING_POLICY, 10_000);
    }

    /** {@code policy} null starts without one. */
    static HttpLedger start(TestDatabases.Kind kind, Path dir, String policy, int maxActiveSessions) throws Exception {
        return start(kind, dir, policy, maxActiveSessions, Duration.ofSeconds(1));
    }

    /**
     * With a checkpoint interval of its own: an hour leaves integration to {@link #integrate}, so a test sees
     * receipts before and after.
     */
    static HttpLedger start(TestDatabases.Kind kind, Path dir, String policy, int maxActiveSessions,
            Duration checkpointInterval) throws Exception {
        HttpLedger ledger = new HttpLedger(kind, dir, checkpointInterval);
        ledger.serve(policy, maxActiveSessions);
        return ledger;
    }

    private void serve(String policy, int maxActiveSessions) throws Exception {
        LedgerSettings settings = new LedgerSettings(stateDirectory, null, new HostPort("127.0.0.1", 0),
                policy == null ? null : PolicyFiles.parse(policy), IDLE_EXPIRY, maxActiveSessions, checkpointInterval)
                .onDatabase(database);
        server = LedgerServer.start(state, settings, clock);
        base = URI.create("http://127.0.0.1:" + server.port());
    }

    /**
     * Another node of {@code first}'s log: a copy of its state directory in {@code dir}, on its PostgreSQL database,
     * with the same policy and cap; its clock is its own and starts, as every test ledger's, at {@link #T0}.
     */
    static HttpLedger join(HttpLedger first, Path dir, String policy, int maxActiveSessions) throws Exception {
        if (first.database == null) {
            throw new IllegalArgumentException("only ledgers on PostgreSQL have other nodes");
        }
        TestIo.copyTree(first.stateDirectory, dir);
        HttpLedger node = new HttpLedger(first.kind, first.database, dir, first.checkpointInterval);
        node.serve(policy, maxActiveSessions);
        return node;
    }

    /** A ledger with state of its own in {@code dir} on an existing PostgreSQL database. */
    static HttpLedger startOn(DatabaseUrl database, Path dir) throws Exception {
        HttpLedger ledger = new HttpLedger(TestDatabases.Kind.POSTGRESQL, database, dir, Duration.ofSeconds(1));
        ledger.serve(PRICING_POLICY, 10_000);
        return ledger;
    }

    /** The PostgreSQL database this ledger runs on, or null on H2. */
    /** The port the ledger listens on, for tests that write requests byte by byte. */
    int port() {
        return base.getPort();
    }

    DatabaseUrl database() {
        return database;
    }

    /** Stops the service and starts it again on the same state: a replay. */
    void restart() throws Exception {
        restart(() -> { });
    }

    /** Something done to the state while the ledger is stopped. */
    @FunctionalInterface
    interface WhileStopped {
        void run() throws Exception;
    }

    /** Stops the service, runs {@code whileStopped}, and starts it again on the same state. */
    void restart(WhileStopped whileStopped) throws Exception {
        server.close();
        whileStopped.run();
        serve(null, 10_000);
    }

    /** Drops the transparency log's tree tables (head, tiles, checkpoints), for a start to build them again. */
    void dropTreeTables() throws Exception {
        if (database == null) {
            TestIo.dropLogTables(stateDirectory);
            return;
        }
        try (Connection c = TestDatabases.connect(database); Statement s = c.createStatement()) {
            for (String table : List.of("log_head", "log_tile", "log_checkpoint")) {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    /** The store this ledger runs on. */
    TestDatabases.Kind kind() {
        return kind;
    }

    /** Integrates every committed receipt into the log now, as the sequencer does each half interval. */
    long integrate() throws Exception {
        return server.engine().integrate();
    }

    LedgerServer server() {
        return server;
    }

    /** Receipts committed so far (the projections' count), to show that a refusal appended nothing. */
    long receipts() {
        return server.engine().projector().position();
    }

    String credential(Role role) {
        return credentials.get(role);
    }

    static String clientToken(String name) {
        return Sha256.hexOfUtf8("client bearer token of " + name);
    }

    /** Parses JSON written in a test, for comparing trees. */
    static JsonNode parse(String json) {
        try {
            return Canonical.parse(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + json, e);
        }
    }

    /** The argumentsSha256 the call helpers send for {@code requestId}. */
    static String args(String requestId) {
        return Sha256.hexOfUtf8("arguments of " + requestId);
    }

    /** A call body for {@code invoke} on {@code server}. */
    /** An initialize body for the pricing server; the principal is named after the client. */
    static String initializeJson(String client) {
        return "{\"principal\":\"" + client + "\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}";
    }

    /**
     * A sessionless call body (contract section 15) from edge {@code edge} (incarnation {@code incarnation}) for
     * principal {@code client}.
     */
    static String clientCallJson(String client, String requestId, String tool, String edge, String incarnation) {
        return "{\"requestId\":\"" + requestId + "\",\"principal\":\"" + client + "\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2026-07-28\","
                + "\"clientInfo\":{\"name\":\"modern-client\",\"version\":\"2.4.0\"},"
                + "\"edge\":{\"id\":\"" + edge + "\",\"incarnation\":\"" + incarnation + "\"},"
                + "\"server\":\"pricing\",\"tool\":\"" + tool + "\",\"operation\":\"invoke\",\"argumentsSha256\":\""
                + args(requestId) + "\",\"jsonrpcId\":7}";
    }

    static String callJson(String requestId, String server, String tool, String argumentsSha256) {
        return "{\"requestId\":\"" + requestId + "\",\"server\":\"" + server + "\",\"tool\":\"" + tool
                + "\",\"operation\":\"invoke\",\"argumentsSha256\":\"" + argumentsSha256 + "\"}";
    }

    /** {@code POST /v1/sessions} as an edge for {@code client}, whose name is also the principal. */
    Reply initialize(String client, String json) throws IOException, InterruptedException {
        return edge("POST", "/v1/sessions").client(clientToken(client)).json(json).send();
    }

    /** Initializes a session for {@code client} (principal {@code client}, server pricing) and answers its id. */
    String initialize(String client) throws IOException, InterruptedException {
        Reply reply = initialize(client, "{\"principal\":\"" + client + "\",\"serverId\":\"pricing\",\"protocolVersion\":\""
                + PROTOCOL + "\"}");
        if (reply.status() != 201) {
            throw new AssertionError("initialize for " + client + " failed: " + reply);
        }
        return reply.json().path("session").path("id").asText();
    }

    /** {@code POST /v1/sessions/{id}/resume}; {@code json} null sends no body. */
    Reply resume(String sessionId, String client, String json) throws IOException, InterruptedException {
        Request request = edge("POST", "/v1/sessions/" + sessionId + "/resume").client(clientToken(client));
        return (json == null ? request : request.json(json)).send();
    }

    /** {@code POST /v1/sessions/{id}/calls} with {@code body} as it is. */
    Reply call(String sessionId, String client, String json) throws IOException, InterruptedException {
        return edge("POST", "/v1/sessions/" + sessionId + "/calls").client(clientToken(client)).json(json).send();
    }

    /** Asks to invoke {@code tool} on server pricing with the arguments {@link #args} gives {@code requestId}. */
    Reply call(String sessionId, String client, String requestId, String tool) throws IOException, InterruptedException {
        return call(sessionId, client, callJson(requestId, "pricing", tool, args(requestId)));
    }

    /** {@code POST /v1/sessions/{id}/calls/{requestId}/outcome}. */
    Reply outcome(String sessionId, String client, String requestId, String json) throws IOException, InterruptedException {
        return edge("POST", "/v1/sessions/" + sessionId + "/calls/" + requestId + "/outcome").client(clientToken(client))
                .json(json).send();
    }

    /** {@code PUT /v1/policy} as the operator. */
    Reply putPolicy(String policy) throws IOException, InterruptedException {
        return operator("PUT", "/v1/policy").json(policy).send();
    }

    /** The latest checkpoint ({@code text/plain}), opened with the verifier key {@code GET /v1/log/public-key} names. */
    Checkpoint checkpoint() throws Exception {
        VerifierKey vkey = VerifierKey.parse(request("GET", "/v1/log/public-key").send().assertStatus(200).json()
                .path("vkey").asText());
        Reply reply = auditor("GET", "/v1/log/checkpoint").send().assertStatus(200);
        if (!reply.header("Content-Type").startsWith("text/plain")) {
            throw new AssertionError("the checkpoint is served as " + reply.header("Content-Type"));
        }
        return Checkpoint.open(reply.text(), vkey);
    }

    /** Every integrated entry's line, read {@code page} at a time until the empty answer that ends the log. */
    List<String> entries(int page) throws Exception {
        List<String> lines = new ArrayList<>();
        while (true) {
            Reply reply = auditor("GET", "/v1/log/entries?start=" + lines.size() + "&limit=" + page).send()
                    .assertStatus(200);
            if (reply.text().isEmpty()) {
                return lines;
            }
            if (!reply.header("Content-Type").startsWith("application/x-ndjson") || !reply.text().endsWith("\n")) {
                throw new AssertionError("entries are not newline-ended NDJSON: " + reply.header("Content-Type"));
            }
            lines.addAll(List.of(reply.text().split("\n")));
        }
    }

    /** Every committed receipt of a session, in {@code seq} order, read from the event store. */
    List<Receipt> receiptsOf(String sessionId) {
        return server.engine().sessionReceipts(sessionId);
    }

    /** The kinds of a session's receipts in {@code seq} order, e.g. {@code [session.initialized, call.admitted]}. */
    List<String> kindsOf(String sessionId) {
        return receiptsOf(sessionId).stream().map(r -> r.kind().wire()).toList();
    }

    Request request(String method, String path) {
        return new Request(method, path);
    }

    Request edge(String method, String path) {
        return request(method, path).as(Role.EDGE);
    }

    Request operator(String method, String path) {
        return request(method, path).as(Role.OPERATOR);
    }

    Request auditor(String method, String path) {
        return request(method, path).as(Role.AUDITOR);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /** One HTTP request being built. */
    final class Request {
        private final HttpRequest.Builder builder;
        private final String method;
        private HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.noBody();

        private Request(String method, String path) {
            this.method = method;
            this.builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        }

        Request as(Role role) {
            return bearer(credentials.get(role));
        }

        Request bearer(String credential) {
            return header("Authorization", "Bearer " + credential);
        }

        Request client(String clientTokenSha256) {
            return header("Client-Token-Sha256", clientTokenSha256);
        }

        Request header(String name, String value) {
            builder.header(name, value);
            return this;
        }

        Request json(String json) {
            return bytes(json.getBytes(StandardCharsets.UTF_8));
        }

        Request bytes(byte[] bytes) {
            body = HttpRequest.BodyPublishers.ofByteArray(bytes);
            builder.header("Content-Type", "application/json");
            return this;
        }

        /** Sends {@code bytes} with chunked transfer encoding: no {@code Content-Length} announces the size. */
        Request chunked(byte[] bytes) {
            body = HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes));
            builder.header("Content-Type", "application/json");
            return this;
        }

        Reply send() throws IOException, InterruptedException {
            HttpResponse<String> response = client.send(builder.method(method, body).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(response);
        }
    }

    /** An answer: status, headers, and the body as text and as JSON. */
    record Reply(HttpResponse<String> response) {
        int status() {
            return response.statusCode();
        }

        String text() {
            return response.body();
        }

        JsonNode json() {
            try {
                return Canonical.parse(response.body());
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + response.body(), e);
            }
        }

        String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }

        /** The top-level member names of the answer, in the order it wrote them. */
        List<String> fieldNames() {
            List<String> names = new ArrayList<>();
            json().fieldNames().forEachRemaining(names::add);
            return names;
        }

        String errorCode() {
            return json().path("error").path("code").asText(null);
        }

        String errorMessage() {
            return json().path("error").path("message").asText(null);
        }

        /** The exact text of the top-level member {@code receipt}, as the server wrote it; null when absent. */
        String rawReceipt() {
            try (JsonParser parser = Canonical.JSON.getFactory().createParser(response.body())) {
                parser.nextToken();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    int from = (int) parser.currentTokenLocation().getCharOffset();
                    parser.skipChildren();
                    if (name.equals("receipt")) {
                        return response.body().substring(from, (int) parser.currentLocation().getCharOffset());
                    }
                }
                return null;
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + response.body(), e);
            }
        }

        /** The top-level {@code receipt}, parsed (which checks that it is in canonical form). */
        Receipt receipt() {
            String raw = rawReceipt();
            if (raw == null) {
                throw new AssertionError("no receipt in " + this);
            }
            try {
                return Receipt.parse(raw);
            } catch (InvalidReceiptException e) {
                throw new AssertionError("not a receipt: " + raw, e);
            }
        }

        JsonNode session() {
            return json().path("session");
        }

        /** Asserts an error answer exactly: the status and the whole body {@code {"error": {"code", "message"}}}. */
        Reply assertError(int status, String code, String message) {
            assertStatus(status);
            JsonNode expected = Canonical.JSON.createObjectNode().set("error",
                    Canonical.JSON.createObjectNode().put("code", code).put("message", message));
            if (!json().equals(expected)) {
                throw new AssertionError("expected body " + expected + " but got " + this);
            }
            return this;
        }

        /** Asserts an error answer that carries a receipt beside the error, and answers that receipt. */
        Receipt assertErrorWithReceipt(int status, String code, String message) {
            assertStatus(status);
            JsonNode error = Canonical.JSON.createObjectNode().put("code", code).put("message", message);
            if (!json().path("error").equals(error) || json().size() != 2) {
                throw new AssertionError("expected {\"error\": " + error + ", \"receipt\": R} but got " + this);
            }
            return receipt();
        }

        Reply assertStatus(int status) {
            if (status() != status) {
                throw new AssertionError("expected status " + status + " but got " + this);
            }
            return this;
        }

        @Override
        public String toString() {
            return response.statusCode() + " " + response.body();
        }
    }
}
