package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import java.nio.file.Files;

/**
 * Contract section 11, bad input: every malformed, mistyped, missing, unknown or out-of-range part of a request is
 * refused with the contract's error, the message names the part, and nothing is appended (the ledger's receipt
 * count and the session's {@code seq} stay as they were). Each bad request goes where the same request with good
 * input succeeds ({@link #eachRequestWithGoodInputIsAccepted}), so the refusal is the input's doing.
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class BadInputHttpTest {
    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    private static final String TOKEN = HttpLedger.clientToken("alice");
    private static final String ARGS = Sha256.hexOfUtf8("{\"symbol\":\"ACME\"}");
    private static final String RESULT = Sha256.hexOfUtf8("{\"price\":42}");
    private static final String MALLORY = HttpLedger.clientToken("mallory");
    /** Every visible ASCII character (0x21-0x7E), three times over, cut to 256: the longest identifier there is. */
    private static final String IDENTIFIER_256 = visibleAscii().repeat(3).substring(0, 256);

    @TempDir
    static Path dir;
    private static HttpLedger ledger;
    /** TOKEN's active session: {@code r-unknown} admitted under edge incarnation inc-1 and now unknown, {@code r-pending} pending. */
    private static String session;

    /** The requests that carry a JSON body, each with a body that is accepted (against a session like {@link #session}). */
    enum Endpoint {
        INITIALIZE("POST", Role.EDGE, true, """
                {"principal":"alice","serverId":"pricing","protocolVersion":"2025-06-18",\
                "clientInfo":{"name":"probe","version":"1.0"},"edge":{"id":"edge-1","incarnation":"inc-1"}}"""),
        RESUME("POST", Role.EDGE, true, """
                {"protocolVersion":"2025-06-18","edge":{"id":"edge-1","incarnation":"inc-2"}}"""),
        CALL("POST", Role.EDGE, true, """
                {"requestId":"r-new","server":"pricing","tool":"quote","operation":"invoke",\
                "argumentsSha256":"%s","jsonrpcId":"7"}""".formatted(ARGS)),
        OUTCOME("POST", Role.EDGE, true, """
                {"status":"ok","resultSha256":"%s","detail":"quoted"}""".formatted(RESULT)),
        RESOLUTION("POST", Role.OPERATOR, false, """
                {"status":"not_run","note":"the pricing service has no record of it"}"""),
        DELETE("DELETE", Role.EDGE, true, null),
        REVOKE_PRINCIPAL("POST", Role.OPERATOR, false, """
                {"tokenSha256":"%s"}""".formatted(MALLORY));

        final String method;
        final Role role;
        final boolean clientToken;
        final String body;

        Endpoint(String method, Role role, boolean clientToken, String body) {
            this.method = method;
            this.role = role;
            this.clientToken = clientToken;
            this.body = body;
        }

        String path(String sessionId) {
            return switch (this) {
                case INITIALIZE -> "/v1/sessions";
                case RESUME -> "/v1/sessions/" + sessionId + "/resume";
                case CALL -> "/v1/sessions/" + sessionId + "/calls";
                case OUTCOME -> "/v1/sessions/" + sessionId + "/calls/r-pending/outcome";
                case RESOLUTION -> "/v1/sessions/" + sessionId + "/calls/r-unknown/resolution";
                case DELETE -> "/v1/sessions/" + sessionId;
                case REVOKE_PRINCIPAL -> "/v1/principals/revoke";
            };
        }
    }

    @BeforeParameterizedClassInvocation
    static void start(TestDatabases.Kind database) throws Exception {
        ledger = HttpLedger.start(database, Files.createDirectories(dir.resolve(database.name())));
        session = openSession();
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        if (ledger != null) {
            ledger.close();
        }
    }

    // ---- good input, so that every refusal below is the bad part's doing

    @ParameterizedTest
    @EnumSource(Endpoint.class)
    void eachRequestWithGoodInputIsAccepted(Endpoint endpoint) throws Exception {
        String fresh = openSession();
        long receipts = ledger.receipts();

        Reply reply = send(endpoint, fresh, endpoint.body);

        assertThat(reply.status()).as(reply.toString()).isEqualTo(endpoint == Endpoint.INITIALIZE ? 201 : 200);
        assertThat(reply.receipt().kind().wire()).isEqualTo(switch (endpoint) {
            case INITIALIZE -> "session.initialized";
            case RESUME -> "session.resumed";
            case CALL -> "call.admitted";
            case OUTCOME -> "call.outcome";
            case RESOLUTION -> "call.resolved";
            case DELETE -> "session.deleted";
            case REVOKE_PRINCIPAL -> "principal.revoked";
        });
        assertThat(ledger.receipts()).isEqualTo(receipts + 1);
    }

    // ---- malformed JSON, empty and non-object bodies

    static Stream<Arguments> malformedBodies() {
        Stream<Arguments> truncated = bodyEndpoints().map(e -> arguments(e,
                Named.of("truncated", e.body.substring(0, e.body.length() - 1).getBytes(StandardCharsets.UTF_8))));
        Stream<Arguments> shapes = Stream.of(
                        Named.of("unquoted member name", "{principal:\"alice\"}"),
                        Named.of("single quotes", "{'principal':'alice'}"),
                        Named.of("trailing comma", "{\"principal\":\"alice\",}"),
                        Named.of("missing colon", "{\"principal\" \"alice\"}"),
                        Named.of("unterminated string", "{\"principal\":\"alice}"),
                        Named.of("bad escape", "{\"principal\":\"al\\xice\"}"),
                        Named.of("raw tab in a string", "{\"principal\":\"al\tice\"}"),
                        Named.of("NaN", "{\"principal\":NaN}"),
                        Named.of("a comment", "{/* who */\"principal\":\"alice\"}"))
                .map(n -> arguments(Endpoint.INITIALIZE, Named.of(n.getName(), n.getPayload().getBytes(StandardCharsets.UTF_8))));
        return Stream.of(truncated, shapes).flatMap(s -> s);
    }

    /**
     * Contract section 11: ill-formed UTF-8 is {@code 400 invalid_json}, never decoded to the character it looks like
     * ({@code r-\xc1\x81} would otherwise be admitted as {@code r-A}, sharing that requestId's idempotency key).
     */
    static Stream<Arguments> illFormedUtf8() {
        return Stream.of(
                        Named.of("overlong A (C1 81)", new int[] {0xC1, 0x81}),
                        Named.of("overlong NUL (C0 80)", new int[] {0xC0, 0x80}),
                        Named.of("overlong slash (E0 80 AF)", new int[] {0xE0, 0x80, 0xAF}),
                        Named.of("overlong four bytes (F0 80 80 81)", new int[] {0xF0, 0x80, 0x80, 0x81}),
                        Named.of("surrogate U+D800 (ED A0 80)", new int[] {0xED, 0xA0, 0x80}),
                        Named.of("surrogate U+DFFF (ED BF BF)", new int[] {0xED, 0xBF, 0xBF}),
                        Named.of("U+110000 (F4 90 80 80)", new int[] {0xF4, 0x90, 0x80, 0x80}),
                        Named.of("lead byte F5", new int[] {0xF5, 0x80, 0x80, 0x80}),
                        Named.of("byte FF", new int[] {0xFF}),
                        Named.of("lone continuation byte", new int[] {0x80}),
                        Named.of("truncated euro sign (E2 82)", new int[] {0xE2, 0x82}),
                        Named.of("truncated before the quote (F0 9F 98)", new int[] {0xF0, 0x9F, 0x98}))
                .flatMap(bad -> Stream.of(arguments(Endpoint.CALL, "requestId", bad),
                        arguments(Endpoint.INITIALIZE, "clientInfo.name", bad)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("illFormedUtf8")
    void illFormedUtf8IsInvalidJson(Endpoint endpoint, String field, int[] bad) throws Exception {
        String marker = "MARKER";
        byte[] template = with(endpoint, field, TextNode.valueOf("r-" + marker)).getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        String text = new String(template, StandardCharsets.UTF_8);
        int at = text.indexOf(marker);
        body.write(text.substring(0, at).getBytes(StandardCharsets.UTF_8));
        for (int b : bad) {
            body.write(b);
        }
        body.write(text.substring(at + marker.length()).getBytes(StandardCharsets.UTF_8));

        Reply reply = assertRefused(() -> sendBytes(endpoint, session, body.toByteArray()), 400, "invalid_json", null);

        assertThat(reply.errorMessage()).startsWith("the body is not well-formed UTF-8: ");
    }

    @Test
    void wellFormedUtf8OfEveryLengthIsAccepted() throws Exception {
        // e-acute, the euro sign, U+FFFD, an emoji and U+10FFFF: two, three and four bytes.
        String name = "caf\u00e9 \u20ac \ufffd \ud83d\ude00 \udbff\udfff";
        String body = with(Endpoint.INITIALIZE, "clientInfo.name", TextNode.valueOf(name));

        Reply reply = send(Endpoint.INITIALIZE, session, body).assertStatus(201);

        assertThat(reply.receipt().body().path("clientInfo").path("name").asText()).isEqualTo(name);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("malformedBodies")
    void malformedJsonIsInvalidJson(Endpoint endpoint, byte[] body) throws Exception {
        Reply reply = assertRefused(() -> sendBytes(endpoint, session, body), 400, "invalid_json", null);

        assertThat(reply.errorMessage()).startsWith("malformed JSON");
    }

    static Stream<Arguments> emptyBodies() {
        return bodyEndpoints().filter(e -> e != Endpoint.RESUME)
                .flatMap(e -> Stream.of(arguments(e, Named.of("no bytes", "")), arguments(e, Named.of("whitespace", " \r\n\t"))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("emptyBodies")
    void emptyBodyIsInvalidJson(Endpoint endpoint, String body) throws Exception {
        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_json", "body");

        assertThat(reply.errorMessage()).contains("empty");
    }

    static Stream<Arguments> nonObjectBodies() {
        Stream<Arguments> kinds = Stream.of("[]", "\"alice\"", "42", "null", "true", "[" + Endpoint.INITIALIZE.body + "]")
                .map(body -> arguments(Endpoint.INITIALIZE, body));
        return Stream.concat(kinds, bodyEndpoints().filter(e -> e != Endpoint.INITIALIZE).map(e -> arguments(e, "[]")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("nonObjectBodies")
    void nonObjectBodyIsInvalidRequest(Endpoint endpoint, String body) throws Exception {
        assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", "body");
    }

    // ---- types, required and unknown members, duplicates, trailing garbage

    static Stream<Arguments> stringFields() {
        return Stream.of(
                arguments(Endpoint.INITIALIZE, "principal"), arguments(Endpoint.INITIALIZE, "serverId"),
                arguments(Endpoint.INITIALIZE, "protocolVersion"), arguments(Endpoint.INITIALIZE, "clientInfo.name"),
                arguments(Endpoint.INITIALIZE, "clientInfo.version"), arguments(Endpoint.INITIALIZE, "edge.id"),
                arguments(Endpoint.INITIALIZE, "edge.incarnation"),
                arguments(Endpoint.RESUME, "protocolVersion"), arguments(Endpoint.RESUME, "edge.id"),
                arguments(Endpoint.RESUME, "edge.incarnation"),
                arguments(Endpoint.CALL, "requestId"), arguments(Endpoint.CALL, "server"), arguments(Endpoint.CALL, "tool"),
                arguments(Endpoint.CALL, "operation"), arguments(Endpoint.CALL, "argumentsSha256"),
                arguments(Endpoint.CALL, "jsonrpcId"),
                arguments(Endpoint.OUTCOME, "status"), arguments(Endpoint.OUTCOME, "resultSha256"),
                arguments(Endpoint.OUTCOME, "detail"),
                arguments(Endpoint.RESOLUTION, "status"), arguments(Endpoint.RESOLUTION, "note"),
                arguments(Endpoint.REVOKE_PRINCIPAL, "tokenSha256"));
    }

    static Stream<Arguments> stringFieldsWithWrongTypes() {
        return stringFields().filter(f -> !f.get()[1].equals("jsonrpcId"))
                .flatMap(f -> Stream.of("42", "1.5", "null", "[\"alice\"]", "true", "{}")
                        .map(value -> arguments(f.get()[0], f.get()[1], value)));
    }

    /** Contract section 4: a JSON-RPC id is a string or an integer of at most 2^53 - 1 in magnitude. */
    @ParameterizedTest(name = "jsonrpcId = {0}")
    @ValueSource(strings = {"1.5", "7.0", "1e3", "null", "[7]", "true", "{}", "9007199254740992", "-9007199254740992",
        "99999999999999999999"})
    void aJsonrpcIdThatIsNeitherAStringNorASafeIntegerIsInvalidRequest(String value) throws Exception {
        String body = with(Endpoint.CALL, "jsonrpcId", json(value));

        Reply reply = assertRefused(() -> send(Endpoint.CALL, session, body), 400, "invalid_request", "jsonrpcId");

        assertThat(reply.errorMessage()).startsWith("field jsonrpcId must be ");
    }

    @ParameterizedTest(name = "{0} {1} = {2}")
    @MethodSource("stringFieldsWithWrongTypes")
    void nonStringWhereAStringIsExpectedIsInvalidRequest(Endpoint endpoint, String field, String value) throws Exception {
        String body = with(endpoint, field, json(value));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).contains("must be a string");
    }

    static Stream<Arguments> objectFieldsWithWrongTypes() {
        return Stream.of(arguments(Endpoint.INITIALIZE, "clientInfo"), arguments(Endpoint.INITIALIZE, "edge"),
                        arguments(Endpoint.RESUME, "edge"))
                .flatMap(f -> Stream.of("\"edge-1\"", "42", "null", "[]", "true")
                        .map(value -> arguments(f.get()[0], f.get()[1], value)));
    }

    @ParameterizedTest(name = "{0} {1} = {2}")
    @MethodSource("objectFieldsWithWrongTypes")
    void nonObjectWhereAnObjectIsExpectedIsInvalidRequest(Endpoint endpoint, String field, String value) throws Exception {
        String body = with(endpoint, field, json(value));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).contains("must be a JSON object");
    }

    static Stream<Arguments> requiredFields() {
        return Stream.of(
                arguments(Endpoint.INITIALIZE, "principal"), arguments(Endpoint.INITIALIZE, "serverId"),
                arguments(Endpoint.INITIALIZE, "protocolVersion"), arguments(Endpoint.INITIALIZE, "clientInfo.name"),
                arguments(Endpoint.INITIALIZE, "clientInfo.version"),
                arguments(Endpoint.CALL, "requestId"), arguments(Endpoint.CALL, "server"), arguments(Endpoint.CALL, "tool"),
                arguments(Endpoint.CALL, "operation"), arguments(Endpoint.CALL, "argumentsSha256"),
                arguments(Endpoint.OUTCOME, "status"),
                arguments(Endpoint.RESOLUTION, "status"), arguments(Endpoint.RESOLUTION, "note"),
                arguments(Endpoint.REVOKE_PRINCIPAL, "tokenSha256"));
    }

    @ParameterizedTest(name = "{0} without {1}")
    @MethodSource("requiredFields")
    void missingRequiredFieldIsInvalidRequest(Endpoint endpoint, String field) throws Exception {
        String body = without(endpoint, field);

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).contains("is required");
    }

    // SPEC: section 4 writes the edge as {"id": STR, "incarnation": STR}? — optional as a whole, but both members
    // required when it is given (members that may be left out are marked "?", like clientInfo's are not). The
    // ledger accepts {"id": ...} alone and even "edge": {} (201/200, a receipt appended).
    @ParameterizedTest(name = "{0} without {1}")
    @MethodSource("edgeMembers")
    void edgeWithoutOneOfItsMembersIsInvalidRequest(Endpoint endpoint, String field) throws Exception {
        String fresh = initialize();
        String body = without(endpoint, field);

        assertRefused(fresh, () -> send(endpoint, fresh, body), 400, "invalid_request", field);
    }

    static Stream<Arguments> edgeMembers() {
        return Stream.of(Endpoint.INITIALIZE, Endpoint.RESUME)
                .flatMap(e -> Stream.of(arguments(e, "edge.id"), arguments(e, "edge.incarnation")));
    }

    static Stream<Arguments> unknownFields() {
        Stream<Arguments> top = bodyEndpoints().map(e -> arguments(e, "bogus"));
        return Stream.concat(top, Stream.of(
                arguments(Endpoint.INITIALIZE, "clientInfo.bogus"), arguments(Endpoint.INITIALIZE, "edge.bogus"),
                arguments(Endpoint.RESUME, "edge.bogus"), arguments(Endpoint.CALL, "requestID"),
                arguments(Endpoint.OUTCOME, "resultSHA256"), arguments(Endpoint.RESOLUTION, "notes")));
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("unknownFields")
    void unknownFieldIsInvalidRequest(Endpoint endpoint, String field) throws Exception {
        String body = with(endpoint, field, TextNode.valueOf("x"));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).contains("is not part of this request");
    }

    static Stream<Arguments> duplicateKeys() {
        Stream<Arguments> top = Stream.of(
                        arguments(Endpoint.INITIALIZE, "principal"), arguments(Endpoint.RESUME, "protocolVersion"),
                        arguments(Endpoint.CALL, "requestId"), arguments(Endpoint.OUTCOME, "status"),
                        arguments(Endpoint.RESOLUTION, "status"), arguments(Endpoint.REVOKE_PRINCIPAL, "tokenSha256"))
                .flatMap(a -> {
                    Endpoint e = (Endpoint) a.get()[0];
                    String field = (String) a.get()[1];
                    String value = body(e).get(field).toString();
                    String rest = e.body.substring(1);
                    return Stream.of(
                            arguments(e, field, Named.of("same value", "{\"" + field + "\":" + value + "," + rest)),
                            arguments(e, field, Named.of("other value", "{\"" + field + "\":\"other\"," + rest)));
                });
        Stream<Arguments> nested = Stream.of(arguments(Endpoint.INITIALIZE, "id",
                Named.of("in edge", Endpoint.INITIALIZE.body.replace("\"edge\":{", "\"edge\":{\"id\":\"edge-0\","))));
        return Stream.concat(top, nested);
    }

    @ParameterizedTest(name = "{0} {1} twice, {2}")
    @MethodSource("duplicateKeys")
    void duplicateMemberIsInvalidJson(Endpoint endpoint, String field, String body) throws Exception {
        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_json", field);

        assertThat(reply.errorMessage()).contains("Duplicate field '" + field + "'");
    }

    static Stream<Arguments> trailingGarbage() {
        Stream<Arguments> kinds = Stream.of(" x", "{}", ",", "]", "}", " \"more\"", " 1", " null")
                .map(suffix -> arguments(Endpoint.INITIALIZE, suffix));
        return Stream.concat(kinds, bodyEndpoints().filter(e -> e != Endpoint.INITIALIZE).map(e -> arguments(e, "{}")));
    }

    @ParameterizedTest(name = "{0} followed by [{1}]")
    @MethodSource("trailingGarbage")
    void trailingGarbageIsInvalidJson(Endpoint endpoint, String suffix) throws Exception {
        Reply reply = assertRefused(() -> send(endpoint, session, endpoint.body + suffix), 400, "invalid_json", null);

        assertThat(reply.errorMessage()).startsWith("malformed JSON");
    }

    // ---- identifiers: visible ASCII (0x21-0x7E), 1 to 256 characters

    static Stream<Arguments> bodyIdentifiers() {
        return Stream.of(
                arguments(Endpoint.INITIALIZE, "principal"), arguments(Endpoint.INITIALIZE, "serverId"),
                arguments(Endpoint.INITIALIZE, "edge.id"), arguments(Endpoint.INITIALIZE, "edge.incarnation"),
                arguments(Endpoint.RESUME, "edge.id"), arguments(Endpoint.RESUME, "edge.incarnation"),
                arguments(Endpoint.CALL, "requestId"), arguments(Endpoint.CALL, "server"),
                arguments(Endpoint.CALL, "tool"), arguments(Endpoint.CALL, "operation"));
    }

    static List<Named<String>> badIdentifiers() {
        return List.of(
                Named.of("non-ASCII", "alicé"),
                Named.of("non-breaking space", "ali\u00a0ce"),
                Named.of("space", "ali ce"),
                Named.of("tab", "ali\tce"),
                Named.of("newline", "ali\nce"),
                Named.of("NUL", "ali\u0000ce"),
                Named.of("DEL", "ali\u007fce"),
                Named.of("empty", ""),
                Named.of("257 characters", "x".repeat(257)));
    }

    static Stream<Arguments> bodyIdentifiersWithBadValues() {
        return bodyIdentifiers().flatMap(f -> badIdentifiers().stream().map(v -> arguments(f.get()[0], f.get()[1], v)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("bodyIdentifiersWithBadValues")
    void identifierOutsideVisibleAsciiOrLengthIsInvalidRequest(Endpoint endpoint, String field, String value) throws Exception {
        String body = with(endpoint, field, TextNode.valueOf(value));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).contains("must be 1 to 256 visible ASCII characters");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("bodyIdentifiers")
    void identifierOf256VisibleAsciiCharactersIsAcceptedAndRecordedExactly(Endpoint endpoint, String field) throws Exception {
        String fresh = initialize();
        long receipts = ledger.receipts();

        Reply reply = send(endpoint, fresh, with(endpoint, field, TextNode.valueOf(IDENTIFIER_256)));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(endpoint == Endpoint.INITIALIZE ? 201 : 200);
        Receipt receipt = reply.receipt();
        String recorded = field.equals("requestId") ? receipt.request() : at(receipt.body(), field).textValue();
        assertThat(recorded).isEqualTo(IDENTIFIER_256);
        assertThat(ledger.receipts()).isEqualTo(receipts + 1);
    }

    /** A request with an identifier in its path, {@code {}} standing for the identifier. */
    record PathRequest(String name, String method, Role role, boolean clientToken, String body, String field, String template) {
        String path(String value) {
            return template.replace("{}", value).replace("{session}", session);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<PathRequest> pathRequests() {
        return Stream.of(
                new PathRequest("resume session", "POST", Role.EDGE, true, "{}", "session id", "/v1/sessions/{}/resume"),
                new PathRequest("call in session", "POST", Role.EDGE, true, Endpoint.CALL.body, "session id", "/v1/sessions/{}/calls"),
                new PathRequest("outcome in session", "POST", Role.EDGE, true, Endpoint.OUTCOME.body, "session id",
                        "/v1/sessions/{}/calls/r-pending/outcome"),
                new PathRequest("resolution in session", "POST", Role.OPERATOR, false, Endpoint.RESOLUTION.body, "session id",
                        "/v1/sessions/{}/calls/r-unknown/resolution"),
                new PathRequest("delete session", "DELETE", Role.EDGE, true, null, "session id", "/v1/sessions/{}"),
                new PathRequest("get session", "GET", Role.EDGE, true, null, "session id", "/v1/sessions/{}"),
                new PathRequest("revoke session", "POST", Role.OPERATOR, false, null, "session id", "/v1/sessions/{}/revoke"),
                new PathRequest("outcome of requestId", "POST", Role.EDGE, true, Endpoint.OUTCOME.body, "requestId",
                        "/v1/sessions/{session}/calls/{}/outcome"),
                new PathRequest("resolution of requestId", "POST", Role.OPERATOR, false, Endpoint.RESOLUTION.body, "requestId",
                        "/v1/sessions/{session}/calls/{}/resolution"),
                new PathRequest("investigate requestId", "GET", Role.AUDITOR, false, null, "requestId", "/v1/investigate/{}"),
                new PathRequest("revoke capability", "POST", Role.OPERATOR, false, null, "capability id",
                        "/v1/capabilities/{}/revoke"));
    }

    static Stream<Arguments> pathIdentifiersWithBadValues() {
        return pathRequests().flatMap(r -> badIdentifiers().stream()
                .filter(v -> !v.getPayload().isEmpty())
                .map(v -> arguments(r, Named.of(v.getName(), percentEncoded(v.getPayload())))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pathIdentifiersWithBadValues")
    void pathIdentifierOutsideVisibleAsciiOrLengthIsInvalidRequest(PathRequest request, String encoded) throws Exception {
        Reply reply = assertRefused(() -> send(request, request.path(encoded)), 400, "invalid_request", request.field());

        assertThat(reply.errorMessage()).isEqualTo(request.field() + " must be 1 to 256 visible ASCII characters (0x21-0x7E)");
    }

    static Stream<Arguments> pathIdentifiersOf256Characters() {
        return pathRequests().map(r -> arguments(r, switch (r.field()) {
            case "session id" -> "session_not_found";
            case "requestId" -> r.method().equals("GET") ? null : "call_not_found";
            default -> "capability_not_found";
        }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pathIdentifiersOf256Characters")
    void pathIdentifierOf256VisibleAsciiCharactersIsReadAsAnId(PathRequest request, String notFound) throws Exception {
        String identifier = new StringBuilder(IDENTIFIER_256).reverse().toString();
        String path = request.path(percentEncoded(identifier));

        if (notFound == null) {
            Reply reply = assertNothingAppended(() -> send(request, path));
            assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
            assertThat(reply.json().path("verdict").asText()).isEqualTo("not_found");
            assertThat(reply.json().path("requestId").asText()).isEqualTo(identifier);
        } else {
            assertRefused(() -> send(request, path), 404, notFound, null);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1/sessions//resume", "/v1/sessions//calls", "/v1/sessions/{session}/calls//outcome",
            "/v1/sessions/{session}/calls//resolution", "/v1/capabilities//revoke"})
    void emptyPathIdentifierMatchesNoEndpoint(String template) throws Exception {
        String path = template.replace("{session}", session);

        assertRefused(() -> ledger.operator("POST", path).client(TOKEN).json("{}").send(), 404, "not_found", null);
    }

    @Test
    void everyVisibleAsciiRequestIdCanBeNamedPercentEncodedInThePath() throws Exception {
        String fresh = initialize();
        for (char c = 0x21; c <= 0x7e; c++) {
            String requestId = "r" + c + "1";
            admit(fresh, requestId);

            Reply reply = ledger.edge("POST", "/v1/sessions/" + fresh + "/calls/" + percentEncoded(requestId) + "/outcome")
                    .client(TOKEN).json("{\"status\":\"ok\"}").send();

            assertThat(reply.status()).as(requestId + ": " + reply).isEqualTo(200);
            assertThat(reply.receipt().request()).isEqualTo(requestId);
        }
    }

    // SPEC: RFC 3986 lets a path segment hold sub-delims, ":" and "@" as they are, and java.net.URI leaves them so.
    // A requestId holding "&", "+" or ";" is admitted, but its outcome sent to .../calls/r+1/outcome answers
    // 404 not_found ("Page Not Found", no route), so the edge cannot record the outcome of an admitted call.
    @ParameterizedTest(name = "r{0}1")
    @ValueSource(strings = {"!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@"})
    void requestIdWithSubDelimitersCanBeNamedAsItIsInThePath(String c) throws Exception {
        String fresh = initialize();
        String requestId = "r" + c + "1";
        admit(fresh, requestId);

        Reply reply = ledger.edge("POST", "/v1/sessions/" + fresh + "/calls/" + requestId + "/outcome")
                .client(TOKEN).json("{\"status\":\"ok\"}").send();

        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.receipt().request()).isEqualTo(requestId);
    }

    // ---- free text: clientInfo at most 256 characters, detail and note at most 4096

    static Stream<Arguments> clientInfoTooLong() {
        return Stream.of("clientInfo.name", "clientInfo.version").flatMap(field -> Stream.of(
                arguments(field, Named.of("257 ASCII", "v".repeat(257))),
                arguments(field, Named.of("257 two-byte", "é".repeat(257))),
                arguments(field, Named.of("257 four-byte", "😀".repeat(257)))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clientInfoTooLong")
    void clientInfoOver256CharactersIsInvalidRequest(String field, String value) throws Exception {
        String body = with(Endpoint.INITIALIZE, field, TextNode.valueOf(value));

        Reply reply = assertRefused(() -> send(Endpoint.INITIALIZE, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).isEqualTo("field " + field + " must be at most 256 characters");
    }

    static Stream<Arguments> clientInfoOf256() {
        return Stream.of("clientInfo.name", "clientInfo.version").flatMap(field -> Stream.of(
                arguments(field, Named.of("256 two-byte", "é".repeat(256))),
                arguments(field, Named.of("256 three-byte", "€".repeat(256))),
                arguments(field, Named.of("256 four-byte", "😀".repeat(256))),
                arguments(field, Named.of("256 mixed", "aé€😀".repeat(64)))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clientInfoOf256")
    void clientInfoOf256MultiByteCharactersIsAcceptedAndRecordedExactly(String field, String value) throws Exception {
        long receipts = ledger.receipts();

        Reply reply = send(Endpoint.INITIALIZE, session, with(Endpoint.INITIALIZE, field, TextNode.valueOf(value)));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        assertThat(at(reply.receipt().body(), field).textValue()).isEqualTo(value);
        assertThat(ledger.receipts()).isEqualTo(receipts + 1);
    }

    static Stream<Arguments> noteTooLong() {
        return Stream.of(arguments(Endpoint.OUTCOME, "detail"), arguments(Endpoint.RESOLUTION, "note"))
                .flatMap(f -> Stream.of(
                        arguments(f.get()[0], f.get()[1], Named.of("4097 ASCII", "d".repeat(4097))),
                        arguments(f.get()[0], f.get()[1], Named.of("4097 two-byte", "é".repeat(4097))),
                        arguments(f.get()[0], f.get()[1], Named.of("4097 four-byte", "😀".repeat(4097)))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("noteTooLong")
    void detailAndNoteOver4096CharactersAreInvalidRequest(Endpoint endpoint, String field, String value) throws Exception {
        String body = with(endpoint, field, TextNode.valueOf(value));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).isEqualTo("field " + field + " must be at most 4096 characters");
    }

    static Stream<Arguments> noteOf4096() {
        return Stream.of(arguments(Endpoint.OUTCOME, "detail"), arguments(Endpoint.RESOLUTION, "note"))
                .flatMap(f -> Stream.of(
                        arguments(f.get()[0], f.get()[1], Named.of("4096 ASCII", "d".repeat(4096))),
                        arguments(f.get()[0], f.get()[1], Named.of("4096 four-byte", "😀".repeat(4096)))));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("noteOf4096")
    void detailAndNoteOf4096CharactersAreAcceptedAndRecordedExactly(Endpoint endpoint, String field, String value)
            throws Exception {
        String fresh = openSession();
        long receipts = ledger.receipts();

        Reply reply = send(endpoint, fresh, with(endpoint, field, TextNode.valueOf(value)));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.receipt().body().path(field).textValue()).isEqualTo(value);
        assertThat(ledger.receipts()).isEqualTo(receipts + 1);
    }

    // SPEC: a JSON string may escape a lone UTF-16 surrogate ("\ud800"), which is no Unicode text and cannot be
    // written as UTF-8, so it is an out-of-range value (section 11: "any UTF-8 text") and must be refused with
    // 400 invalid_request before anything is appended. The ledger appends the receipt (the receipt count grows)
    // and then answers 500 internal_error "an answer could not be written as JSON: Incomplete surrogate pair".
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("loneSurrogates")
    void loneSurrogateInFreeTextIsInvalidRequest(Endpoint endpoint, String field) throws Exception {
        String fresh = openSession();
        String body = with(endpoint, field, TextNode.valueOf("SURROGATE")).replace("SURROGATE", "a\\ud800b");

        assertRefused(fresh, () -> send(endpoint, fresh, body), 400, "invalid_request", field);
    }

    static Stream<Arguments> loneSurrogates() {
        return Stream.of(arguments(Endpoint.INITIALIZE, "clientInfo.name"), arguments(Endpoint.INITIALIZE, "clientInfo.version"),
                arguments(Endpoint.CALL, "jsonrpcId"), arguments(Endpoint.OUTCOME, "detail"),
                arguments(Endpoint.RESOLUTION, "note"));
    }

    // ---- hex: lowercase, exactly 64 characters

    static List<Named<String>> badHex() {
        return List.of(
                Named.of("uppercase", ARGS.toUpperCase()),
                Named.of("one uppercase letter", ARGS.replaceFirst("[a-f]", "A")),
                Named.of("63 characters", ARGS.substring(1)),
                Named.of("65 characters", ARGS + "0"),
                Named.of("128 characters", ARGS + ARGS),
                Named.of("non-hex letter", "g" + ARGS.substring(1)),
                Named.of("0x prefix", "0x" + ARGS.substring(2)),
                Named.of("trailing space", ARGS.substring(1) + " "),
                Named.of("empty", ""));
    }

    static Stream<Arguments> hexFieldsWithBadValues() {
        return Stream.of(arguments(Endpoint.CALL, "argumentsSha256"), arguments(Endpoint.OUTCOME, "resultSha256"),
                        arguments(Endpoint.REVOKE_PRINCIPAL, "tokenSha256"))
                .flatMap(f -> badHex().stream().map(v -> arguments(f.get()[0], f.get()[1], v)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("hexFieldsWithBadValues")
    void hexFieldThatIsNot64LowercaseHexIsInvalidRequest(Endpoint endpoint, String field, String value) throws Exception {
        String body = with(endpoint, field, TextNode.valueOf(value));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "invalid_request", field);

        assertThat(reply.errorMessage()).isEqualTo("field " + field + " must be 64 lowercase hex characters");
    }

    static Stream<Endpoint> clientTokenEndpoints() {
        return Stream.of(Endpoint.values()).filter(e -> e.clientToken);
    }

    static Stream<Arguments> clientTokenHeadersWithBadValues() {
        return clientTokenEndpoints().flatMap(e -> badHex().stream()
                .filter(v -> !v.getName().equals("trailing space"))
                .map(v -> arguments(e, Named.of(v.getName(), v.getPayload().equals(ARGS.toUpperCase())
                        ? TOKEN.toUpperCase() : v.getPayload()))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clientTokenHeadersWithBadValues")
    void clientTokenHeaderThatIsNot64LowercaseHexIsInvalidRequest(Endpoint endpoint, String header) throws Exception {
        Reply reply = assertRefused(() -> request(endpoint.method, endpoint.path(session), endpoint.role, header,
                endpoint.body), 400, "invalid_request", "Client-Token-Sha256");

        assertThat(reply.errorMessage()).isEqualTo("header Client-Token-Sha256 must be 64 lowercase hex characters");
    }

    @Test
    void clientTokenHeaderOnSessionReadThatIsNot64LowercaseHexIsInvalidRequest() throws Exception {
        assertRefused(() -> ledger.edge("GET", "/v1/sessions/" + session).client(TOKEN.toUpperCase()).send(),
                400, "invalid_request", "Client-Token-Sha256");
    }

    @ParameterizedTest
    @MethodSource("clientTokenEndpoints")
    void missingClientTokenHeaderIsInvalidRequest(Endpoint endpoint) throws Exception {
        Reply reply = assertRefused(() -> request(endpoint.method, endpoint.path(session), endpoint.role, null,
                endpoint.body), 400, "invalid_request", "Client-Token-Sha256");

        assertThat(reply.errorMessage()).startsWith("header Client-Token-Sha256 is required");
    }

    // ---- protocol versions and statuses

    static Stream<Arguments> unsupportedProtocolVersions() {
        return Stream.of(Endpoint.INITIALIZE, Endpoint.RESUME).flatMap(e -> Stream.of(
                "2025-01-01", "2025-6-18", "2025-06-18 ", " 2025-06-18", "1.0", "latest", "")
                .map(v -> arguments(e, v)));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("unsupportedProtocolVersions")
    void unsupportedProtocolVersionIsRefused(Endpoint endpoint, String version) throws Exception {
        String body = with(endpoint, "protocolVersion", TextNode.valueOf(version));

        Reply reply = assertRefused(() -> send(endpoint, session, body), 400, "unsupported_protocol_version",
                "protocolVersion");

        assertThat(reply.errorMessage()).isEqualTo("unsupported protocolVersion " + version
                + "; supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25");
    }

    // SPEC: section 4 answers any protocolVersion but the four listed with 400 unsupported_protocol_version, and
    // section 11 sets no length limit on it; one of 257 characters is answered 400 invalid_request
    // ("field protocolVersion must be at most 256 characters").
    @ParameterizedTest
    @EnumSource(value = Endpoint.class, names = {"INITIALIZE", "RESUME"})
    void protocolVersionOf257CharactersIsUnsupportedProtocolVersion(Endpoint endpoint) throws Exception {
        String body = with(endpoint, "protocolVersion", TextNode.valueOf("2025-06-18".repeat(26).substring(0, 257)));

        assertRefused(() -> send(endpoint, session, body), 400, "unsupported_protocol_version", "protocolVersion");
    }

    @ParameterizedTest
    @ValueSource(strings = {"done", "OK", "Ok", "ok ", "not_run", "pending", ""})
    void outcomeStatusOtherThanOkErrorOrUnknownIsInvalidRequest(String status) throws Exception {
        String body = with(Endpoint.OUTCOME, "status", TextNode.valueOf(status));

        Reply reply = assertRefused(() -> send(Endpoint.OUTCOME, session, body), 400, "invalid_request", "status");

        assertThat(reply.errorMessage()).isEqualTo("field status must be one of ok, error, unknown, got \"" + status + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"unknown", "NOT_RUN", "not-run", "pending", "cancelled", ""})
    void resolutionStatusOtherThanOkErrorOrNotRunIsInvalidRequest(String status) throws Exception {
        String body = with(Endpoint.RESOLUTION, "status", TextNode.valueOf(status));

        Reply reply = assertRefused(() -> send(Endpoint.RESOLUTION, session, body), 400, "invalid_request", "status");

        assertThat(reply.errorMessage()).isEqualTo("field status must be one of ok, error, not_run, got \"" + status + "\"");
    }

    // ---- size: at most 64 KiB

    static Stream<Arguments> oversizedBodies() {
        return bodyEndpoints().flatMap(e -> Stream.of(
                arguments(e, "Content-Length", 65_537), arguments(e, "chunked", 65_537),
                arguments(e, "Content-Length", 1 << 20), arguments(e, "chunked", 1 << 20)));
    }

    @ParameterizedTest(name = "{0} {2} bytes, {1}")
    @MethodSource("oversizedBodies")
    void bodyOver64KiBIsPayloadTooLarge(Endpoint endpoint, String framing, int size) throws Exception {
        byte[] body = padded(endpoint.body, size);

        Reply reply = assertRefused(() -> {
            HttpLedger.Request request = ledger.request(endpoint.method, endpoint.path(session)).as(endpoint.role)
                    .client(TOKEN);
            return (framing.equals("chunked") ? request.chunked(body) : request.bytes(body)).send();
        }, 413, "payload_too_large", null);

        assertThat(reply.errorMessage()).isEqualTo("the body is larger than 65536 bytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Content-Length", "chunked"})
    void bodyOfExactly64KiBIsAccepted(String framing) throws Exception {
        byte[] body = padded(Endpoint.INITIALIZE.body, 65_536);
        long receipts = ledger.receipts();

        HttpLedger.Request request = ledger.edge("POST", "/v1/sessions").client(TOKEN);
        Reply reply = (framing.equals("chunked") ? request.chunked(body) : request.bytes(body)).send();

        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        assertThat(ledger.receipts()).isEqualTo(receipts + 1);
    }

    // ---- query parameters of GET /v1/sessions

    static Stream<Arguments> badQueries() {
        return Stream.of(
                arguments("limit=0", "limit"), arguments("limit=-1", "limit"), arguments("limit=abc", "limit"),
                arguments("limit=", "limit"), arguments("limit=1.5", "limit"), arguments("limit=%201", "limit"),
                arguments("limit=99999999999", "limit"),
                arguments("state=bogus", "state"), arguments("state=ACTIVE", "state"), arguments("state=expired", "state"),
                arguments("state=active&limit=0", "limit"),
                arguments("after=a%20b", "after"), arguments("after=%C3%A9", "after"),
                arguments("after=" + "x".repeat(257), "after"));
    }

    @ParameterizedTest(name = "?{0}")
    @MethodSource("badQueries")
    void badSessionListQueryIsInvalidRequest(String query, String parameter) throws Exception {
        Reply reply = assertRefused(() -> ledger.edge("GET", "/v1/sessions?" + query).send(), 400, "invalid_request",
                parameter);

        assertThat(reply.errorMessage()).startsWith("query parameter " + parameter + " ");
    }

    /**
     * Request-targets written byte by byte, as Java's HTTP client would not send them: RFC 3986 decides what a path may
     * hold as it is. Micronaut refuses most such targets before a controller runs; what reaches one is read by
     * {@link PathSegments} (whose test of a target it reads without parsing is {@link HttpPathsTest}'s). {@code {}}
     * stands for the raw identifier, in a session id's place and in a requestId's.
     */
    static Stream<Arguments> rawPathIdentifiers() {
        String malformed = "Malformed URI";
        String notAscii = " must be 1 to 256 visible ASCII characters (0x21-0x7E)";
        List<Arguments> cases = new ArrayList<>();
        for (String raw : List.of("a|b", "a^b", "a`b", "a{b", "a}b", "a\"b", "a\\b", "a<b", "a%zzb", "a%4")) {
            cases.add(arguments("/v1/sessions/{}/calls", raw, 400, "invalid_request", malformed));
            cases.add(arguments("/v1/sessions/{session}/calls/{}/outcome", raw, 400, "invalid_request", malformed));
        }
        cases.add(arguments("/v1/sessions/{}/calls", "a\u00e9b", 400, "invalid_request", "session id" + notAscii));
        cases.add(arguments("/v1/sessions/{session}/calls/{}/outcome", "a\u00e9b", 400, "invalid_request",
                "requestId" + notAscii));
        cases.add(arguments("/v1/sessions/{}/calls", "a!$&'()*+,;=:@b", 404, "session_not_found", "session not found"));
        cases.add(arguments("/v1/sessions/{session}/calls/{}/outcome", "a!$&'()*+,;=:@b", 404, "call_not_found", null));
        cases.add(arguments("/v1/sessions/{}/calls?x|y", "a-b", 400, "invalid_request", malformed));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rawPathIdentifiers")
    void aRawPathIdentifierIsReadAsRfc3986Says(String template, String raw, int status, String code, String message)
            throws Exception {
        String target = template.replace("{session}", session).replace("{}", raw);
        String body = template.endsWith("/outcome") ? Endpoint.OUTCOME.body : Endpoint.CALL.body;
        long receipts = ledger.receipts();
        long seq = seqOf(session);

        JsonNode answer = rawPost(target, body, status);

        assertThat(answer.path("error").path("code").asText()).as(answer.toString()).isEqualTo(code);
        if (message != null) {
            assertThat(answer.path("error").path("message").asText()).as(answer.toString()).isEqualTo(message);
        }
        assertThat(ledger.receipts()).as("receipts in the ledger").isEqualTo(receipts);
        assertThat(seqOf(session)).as("the session's seq").isEqualTo(seq);
    }

    /** POSTs {@code body} to {@code target} written as it is (UTF-8) on a connection of its own, as the edge. */
    private static JsonNode rawPost(String target, String body, int status) throws Exception {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + target + " HTTP/1.1\r\nHost: ledger\r\nAuthorization: Bearer "
                + ledger.credential(Role.EDGE) + "\r\n" + SessionController.CLIENT_TOKEN + ": " + TOKEN
                + "\r\nContent-Type: application/json\r\nContent-Length: " + content.length
                + "\r\nConnection: close\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", ledger.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(head.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().write(content);
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).as(target).startsWith("HTTP/1.1 " + status + " ");
            assertThat(answer.toLowerCase(Locale.ROOT)).as(answer).doesNotContain("transfer-encoding");
            return Canonical.parse(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        }
    }

    // ---- helpers

    @FunctionalInterface
    interface Sending {
        Reply send() throws Exception;
    }

    /**
     * Sends, then asserts the status and error code, that the message names {@code field} (when given), that the
     * answer carries no receipt, and that nothing was appended: neither to the ledger nor to {@code watched}.
     */
    private static Reply assertRefused(String watched, Sending request, int status, String code, String field)
            throws Exception {
        long seq = seqOf(watched);
        Reply reply = assertNothingAppended(request);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
        assertThat(reply.errorCode()).as(reply.toString()).isEqualTo(code);
        if (field != null) {
            assertThat(reply.errorMessage()).as("the message names " + field)
                    .containsPattern("(?<![\\w.])" + Pattern.quote(field) + "(?![\\w])");
        }
        assertThat(reply.json().has("receipt")).as(reply.toString()).isFalse();
        assertThat(seqOf(watched)).as("the session's seq").isEqualTo(seq);
        return reply;
    }

    private static Reply assertRefused(Sending request, int status, String code, String field) throws Exception {
        return assertRefused(session, request, status, code, field);
    }

    private static Reply assertNothingAppended(Sending request) throws Exception {
        long receipts = ledger.receipts();
        Reply reply = request.send();
        assertThat(ledger.receipts()).as("receipts in the ledger after " + reply).isEqualTo(receipts);
        return reply;
    }

    private static long seqOf(String sessionId) throws Exception {
        Reply reply = ledger.auditor("GET", "/v1/sessions/" + sessionId).send();
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        return reply.json().path("seq").asLong();
    }

    /** A fresh session of TOKEN with {@code r-unknown} unknown (admitted by edge incarnation inc-1) and {@code r-pending} pending. */
    private static String openSession() throws Exception {
        String id = initialize();
        admit(id, "r-unknown");
        Reply resumed = send(Endpoint.RESUME, id, Endpoint.RESUME.body);
        assertThat(resumed.status()).as(resumed.toString()).isEqualTo(200);
        admit(id, "r-pending");
        return id;
    }

    private static String initialize() throws Exception {
        Reply reply = send(Endpoint.INITIALIZE, null, Endpoint.INITIALIZE.body);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
        return reply.json().path("session").path("id").asText();
    }

    private static void admit(String sessionId, String requestId) throws Exception {
        Reply reply = send(Endpoint.CALL, sessionId, with(Endpoint.CALL, "requestId", TextNode.valueOf(requestId)));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.json().path("decision").asText()).as(reply.toString()).isEqualTo("admitted");
    }

    private static Reply send(Endpoint endpoint, String sessionId, String body) throws Exception {
        return sendBytes(endpoint, sessionId, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    private static Reply sendBytes(Endpoint endpoint, String sessionId, byte[] body) throws Exception {
        HttpLedger.Request request = ledger.request(endpoint.method, endpoint.path(sessionId)).as(endpoint.role);
        if (endpoint.clientToken) {
            request.client(TOKEN);
        }
        return (body == null ? request : request.bytes(body)).send();
    }

    private static Reply send(PathRequest request, String path) throws Exception {
        return request(request.method(), path, request.role(), request.clientToken() ? TOKEN : null, request.body());
    }

    private static Reply request(String method, String path, Role role, String clientToken, String body) throws Exception {
        HttpLedger.Request request = ledger.request(method, path).as(role);
        if (clientToken != null) {
            request.client(clientToken);
        }
        return (body == null ? request : request.json(body)).send();
    }

    private static Stream<Endpoint> bodyEndpoints() {
        return Stream.of(Endpoint.values()).filter(e -> e.body != null);
    }

    private static ObjectNode body(Endpoint endpoint) {
        return (ObjectNode) json(endpoint.body);
    }

    private static JsonNode json(String text) {
        try {
            return Canonical.parse(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** The endpoint's good body with the member at {@code path} ("edge.id") set to {@code value}. */
    private static String with(Endpoint endpoint, String path, JsonNode value) {
        ObjectNode body = body(endpoint);
        parent(body, path).set(last(path), value);
        return body.toString();
    }

    /** The endpoint's good body without the member at {@code path}. */
    private static String without(Endpoint endpoint, String path) {
        ObjectNode body = body(endpoint);
        parent(body, path).remove(last(path));
        return body.toString();
    }

    private static ObjectNode parent(ObjectNode body, String path) {
        ObjectNode node = body;
        String[] names = path.split("\\.");
        for (int i = 0; i < names.length - 1; i++) {
            node = (ObjectNode) node.get(names[i]);
        }
        return node;
    }

    private static String last(String path) {
        return path.substring(path.lastIndexOf('.') + 1);
    }

    private static JsonNode at(JsonNode node, String path) {
        JsonNode n = node;
        for (String name : path.split("\\.")) {
            n = n.path(name);
        }
        return n;
    }

    /** {@code json} followed by spaces up to exactly {@code size} bytes: still one valid JSON object. */
    private static byte[] padded(String json, int size) {
        byte[] text = json.getBytes(StandardCharsets.UTF_8);
        byte[] bytes = new byte[size];
        System.arraycopy(text, 0, bytes, 0, text.length);
        Arrays.fill(bytes, text.length, size, (byte) ' ');
        return bytes;
    }

    /** Every UTF-8 byte outside RFC 3986's unreserved set as %XX, so any identifier fits in one path segment. */
    private static String percentEncoded(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static String visibleAscii() {
        return IntStream.rangeClosed(0x21, 0x7e).mapToObj(c -> String.valueOf((char) c)).collect(Collectors.joining());
    }
}
