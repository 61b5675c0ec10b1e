package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.args;
import static io.mcpledger.app.http.HttpLedger.callJson;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.statedir.Role.AUDITOR;
import static io.mcpledger.app.statedir.Role.EDGE;
import static io.mcpledger.app.statedir.Role.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.http.HttpLedger.Request;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.session.SessionIds;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import java.nio.file.Files;

/**
 * Contract section 3, endpoint by endpoint and role by role: a missing or wrong credential is {@code 401} with
 * {@code WWW-Authenticate: Bearer}, a right credential of the wrong role is {@code 403 forbidden}, and neither
 * appends anything; with the right role the request reaches its endpoint. Requests name ids that were never
 * issued, so most of them end in a 404 once past authentication.
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class AuthHttpTest {
    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    private static final String CLIENT = "auth";
    private static final String SESSION = SessionIds.issue(clientToken(CLIENT), new byte[16]);
    private static final String MISSING = "send Authorization: Bearer <credential>; the credentials are in the ledger's"
            + " state directory";
    private static final String WRONG = "the bearer credential is not one of this ledger's credentials";
    private static final Set<Role> EVERYONE = EnumSet.allOf(Role.class);

    /** One endpoint of the contract: a request to it, the roles that may send it, and its answer once past auth. */
    record Endpoint(String method, String path, String body, Set<Role> roles, int passes) {
        @Override
        public String toString() {
            return method + " " + path.replace(SESSION, "{id}");
        }
    }

    private static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("POST", "/v1/sessions", "{\"principal\":\"auth\",\"serverId\":\"pricing\","
                    + "\"protocolVersion\":\"2025-06-18\"}", EnumSet.of(EDGE, OPERATOR), 201),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/resume", null, EnumSet.of(EDGE, OPERATOR), 404),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/calls", callJson("r1", "pricing", "quote", args("r1")),
                    EnumSet.of(EDGE, OPERATOR), 404),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/calls/r1/outcome", "{\"status\":\"ok\"}",
                    EnumSet.of(EDGE, OPERATOR), 404),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/calls/r1/resolution", "{\"status\":\"ok\",\"note\":\"n\"}",
                    EnumSet.of(OPERATOR), 404),
            new Endpoint("DELETE", "/v1/sessions/" + SESSION, null, EnumSet.of(EDGE, OPERATOR), 404),
            new Endpoint("GET", "/v1/sessions/" + SESSION, null, EVERYONE, 404),
            new Endpoint("GET", "/v1/sessions?state=active&limit=10", null, EVERYONE, 200),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/revoke", null, EnumSet.of(OPERATOR), 404),
            new Endpoint("POST", "/v1/capabilities/cap-never-issued/revoke", null, EnumSet.of(OPERATOR), 404),
            new Endpoint("POST", "/v1/principals/revoke", "{\"tokenSha256\":\"" + clientToken("auth-revoked") + "\"}",
                    EnumSet.of(OPERATOR), 200),
            new Endpoint("PUT", "/v1/policy", HttpLedger.PRICING_POLICY, EnumSet.of(OPERATOR), 200),
            new Endpoint("GET", "/v1/policy", null, EVERYONE, 200),
            new Endpoint("GET", "/v1/receipts/rcpt-never-issued", null, EVERYONE, 404),
            new Endpoint("GET", "/v1/investigate/r1", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            new Endpoint("GET", "/v1/projections/digest", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            new Endpoint("GET", "/v1/log/public-key", null, EVERYONE, 200),
            new Endpoint("GET", "/v1/log/checkpoint", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            new Endpoint("GET", "/v1/log/entries?start=0&limit=1", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            new Endpoint("GET", "/v1/log/proof/consistency?from=1&to=1", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            new Endpoint("GET", "/v1/receipts/rcpt-never-issued/proof", null, EVERYONE, 404),
            new Endpoint("GET", "/metrics", null, EnumSet.of(AUDITOR, OPERATOR), 200),
            // Other spellings of operator-only paths reach the same endpoint and need the same role.
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/revoke/", null, EnumSet.of(OPERATOR), 404),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/calls/r1/resolution/", "{\"status\":\"ok\",\"note\":\"n\"}",
                    EnumSet.of(OPERATOR), 404),
            new Endpoint("POST", "/v1/sessions/" + SESSION + "/calls/r%2F1/resolution", "{\"status\":\"ok\",\"note\":\"n\"}",
                    EnumSet.of(OPERATOR), 404),
            new Endpoint("PUT", "/v1/policy/", HttpLedger.PRICING_POLICY, EnumSet.of(OPERATOR), 200));

    @TempDir
    static Path state;
    static HttpLedger ledger;

    @BeforeParameterizedClassInvocation
    static void start(TestDatabases.Kind database) throws Exception {
        ledger = HttpLedger.start(database, Files.createDirectories(state.resolve(database.name())));
        ledger.integrate();
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        ledger.close();
    }

    static Stream<Endpoint> guarded() {
        return ENDPOINTS.stream().filter(e -> !e.path().equals("/v1/log/public-key"));
    }

    static Stream<Arguments> allowed() {
        return ENDPOINTS.stream().flatMap(e -> e.roles().stream().map(role -> Arguments.of(e, role)));
    }

    static Stream<Arguments> forbidden() {
        return ENDPOINTS.stream().flatMap(e -> EnumSet.complementOf(EnumSet.copyOf(e.roles())).stream()
                .map(role -> Arguments.of(e, role)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("guarded")
    void aMissingCredentialIs401WithWwwAuthenticateBearer(Endpoint endpoint) throws Exception {
        long before = ledger.receipts();

        Reply reply = send(endpoint, ledger.request(endpoint.method(), endpoint.path()));

        reply.assertError(401, "unauthorized", MISSING);
        assertThat(reply.header("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("guarded")
    void aWrongCredentialIs401WithWwwAuthenticateBearer(Endpoint endpoint) throws Exception {
        long before = ledger.receipts();

        Reply reply = send(endpoint, ledger.request(endpoint.method(), endpoint.path()).bearer("not-a-credential"));

        reply.assertError(401, "unauthorized", WRONG);
        assertThat(reply.header("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} as {1}")
    @MethodSource("forbidden")
    void aCredentialOfTheWrongRoleIs403Forbidden(Endpoint endpoint, Role role) throws Exception {
        long before = ledger.receipts();

        Reply reply = send(endpoint, ledger.request(endpoint.method(), endpoint.path()).as(role));

        reply.assertError(403, "forbidden", "the " + role.id() + " credential may not " + endpoint.method() + " "
                + endpoint.path().replaceFirst("\\?.*", ""));
        assertThat(reply.header("WWW-Authenticate")).isNull();
        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} as {1}")
    @MethodSource("allowed")
    void aCredentialOfAnAllowedRoleReachesTheEndpoint(Endpoint endpoint, Role role) throws Exception {
        Reply reply = send(endpoint, ledger.request(endpoint.method(), endpoint.path()).as(role));

        reply.assertStatus(endpoint.passes());
    }

    @Test
    void anotherAuthorizationSchemeIs401() throws Exception {
        Reply reply = ledger.request("GET", "/v1/sessions")
                .header("Authorization", "Basic " + ledger.credential(AUDITOR)).send();

        reply.assertError(401, "unauthorized", MISSING);
        assertThat(reply.header("WWW-Authenticate")).isEqualTo("Bearer");
    }

    @Test
    void thePublicKeyNeedsNoCredential() throws Exception {
        Reply reply = ledger.request("GET", "/v1/log/public-key").send();

        reply.assertStatus(200);
        assertThat(reply.json().path("pem").asText()).startsWith("-----BEGIN PUBLIC KEY-----");
    }

    private static Reply send(Endpoint endpoint, Request request) throws Exception {
        request.client(clientToken(CLIENT));
        return (endpoint.body() == null ? request : request.json(endpoint.body())).send();
    }
}
