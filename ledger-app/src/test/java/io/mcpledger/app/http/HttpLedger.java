package io.mcpledger.app.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.cli.HostPort;
import io.mcpledger.app.engine.LedgerServer;
import io.mcpledger.app.engine.LedgerSettings;
import io.mcpledger.app.policy.PolicyFiles;
import io.mcpledger.app.statedir.LoadedState;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.domain.crypto.Sha256;
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
import java.util.EnumMap;
import java.util.Map;

/**
 * The real ledger service in-process (Micronaut, Axon, H2 on a temporary state directory) on a free port, with
 * a hand-moved clock, and a plain HTTP client that speaks to it as an edge, an operator or an auditor would.
 */
final class HttpLedger implements AutoCloseable {
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
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
    private LedgerServer server;
    private URI base;

    private HttpLedger(Path stateDirectory) throws Exception {
        this.stateDirectory = stateDirectory;
        StateDirectory directory = new StateDirectory(stateDirectory);
        directory.init(null);
        this.state = directory.load(null);
        for (Role role : Role.values()) {
            credentials.put(role, Files.readString(directory.tokenFile(role)).strip());
        }
    }

    /** A ledger with the pricing policy (quote and discount), a 30-minute idle expiry and room for 10,000 sessions. */
    static HttpLedger start(Path dir) throws Exception {
        return start(dir, PRICING_POLICY, 10_000);
    }

    /** {@code policy} null starts without one. */
    static HttpLedger start(Path dir, String policy, int maxActiveSessions) throws Exception {
        HttpLedger ledger = new HttpLedger(dir);
        ledger.serve(policy, maxActiveSessions);
        return ledger;
    }

    private void serve(String policy, int maxActiveSessions) throws Exception {
        LedgerSettings settings = new LedgerSettings(stateDirectory, null, new HostPort("127.0.0.1", 0),
                policy == null ? null : PolicyFiles.parse(policy), IDLE_EXPIRY, maxActiveSessions, Duration.ofSeconds(1));
        server = LedgerServer.start(state, settings, clock);
        base = URI.create("http://127.0.0.1:" + server.port());
    }

    /** Stops the service and starts it again on the same state: a replay. */
    void restart() throws Exception {
        server.close();
        serve(null, 10_000);
    }

    LedgerServer server() {
        return server;
    }

    /** Receipts committed so far (the projections' count), to show that a refusal appended nothing. */
    long receipts() {
        return server.engine().projection().size();
    }

    String credential(Role role) {
        return credentials.get(role);
    }

    static String clientToken(String name) {
        return Sha256.hexOfUtf8("client bearer token of " + name);
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

        String errorCode() {
            return json().path("error").path("code").asText(null);
        }

        String errorMessage() {
            return json().path("error").path("message").asText(null);
        }

        /** The answer's {@code receipt}, checked to be carried as its exact signed JCS line. */
        Receipt receipt() {
            JsonNode node = json().get("receipt");
            if (node == null || !node.isObject()) {
                throw new AssertionError("no receipt in " + this);
            }
            String line = Canonical.jcs(node);
            if (!response.body().contains(line)) {
                throw new AssertionError("the receipt is not carried as its JCS line: " + this);
            }
            try {
                return Receipt.parse(line);
            } catch (InvalidReceiptException e) {
                throw new AssertionError("not a receipt: " + line, e);
            }
        }

        @Override
        public String toString() {
            return response.statusCode() + " " + response.body();
        }
    }
}
