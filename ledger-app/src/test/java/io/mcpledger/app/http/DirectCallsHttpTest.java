package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.receipt.Canonical;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link DirectCalls}: a call served ahead of Micronaut is answered as Micronaut's controller answers it, answers keep
 * the order of pipelined requests whichever of the two serves each, and whatever the controller would refuse (a bad
 * body, a missing header, a credential that may not call) still gets the controller's refusal.
 */
class DirectCallsHttpTest extends SharedLedgerTest {
    @Test
    void pipelinedRequestsAreAnsweredInOrderWhicheverPathServesThem() throws Exception {
        String id = ledger.initialize("pipelined");
        long before = ledger.receipts();
        String edge = ledger.credential(Role.EDGE);
        String pipelined = call(id, "pipelined", "p1", edge, "") + "GET /health HTTP/1.1\r\nHost: ledger\r\n\r\n"
                + call(id, "pipelined", "p2", edge, "")
                + post("/v1/sessions/" + id + "/calls", edge, "pipelined", "{\"requestId\":\"p3\"}", "")
                + call(id, "pipelined", "p4", ledger.credential(Role.AUDITOR), "")
                + call(id, "pipelined", "p5", edge, "");

        List<Answer> answers = exchange(pipelined, 6);

        assertThat(answers).extracting(Answer::status).containsExactly(200, 200, 200, 400, 403, 200);
        assertThat(answers.get(0).json().path("callId").asText()).isEqualTo("p1");
        assertThat(answers.get(1).json().has("status")).as(answers.get(1).body()).isTrue();
        assertThat(answers.get(2).json().path("callId").asText()).isEqualTo("p2");
        assertThat(answers.get(3).json().path("error").path("code").asText()).isEqualTo("invalid_request");
        assertThat(answers.get(3).json().path("error").path("message").asText()).contains("server");
        assertThat(answers.get(4).json().path("error").path("code").asText()).isEqualTo("forbidden");
        assertThat(answers.get(5).json().path("callId").asText()).isEqualTo("p5");
        assertThat(ledger.receipts()).as("three calls admitted, the refused requests appended nothing")
                .isEqualTo(before + 3);
    }

    @Test
    void aCallServedDirectlyIsAnsweredAsTheControllerAnswersIt() throws Exception {
        String id = ledger.initialize("same-answer");
        String edge = ledger.credential(Role.EDGE);

        // Kept alive: served ahead of Micronaut. Closing: Micronaut's controller serves the same request again, whose
        // answer repeats the stored decision.
        Answer direct = exchange(call(id, "same-answer", "s1", edge, ""), 1).get(0);
        Answer controller = exchange(call(id, "same-answer", "s1", edge, "Connection: close\r\n"), 1).get(0);

        assertThat(direct.status()).isEqualTo(200);
        assertThat(direct.body()).isEqualTo(controller.body());
        assertThat(direct.headers().keySet()).containsAll(List.of("content-type", "content-length", "date"));
        assertThat(direct.headers().get("content-type")).isEqualTo(controller.headers().get("content-type"));
    }

    @Test
    void aPlainKeptAliveCallIsServedAheadOfMicronautAndAnyOtherByTheController() throws Exception {
        String id = ledger.initialize("which-path");
        String run = java.util.UUID.randomUUID().toString();
        String edge = ledger.credential(Role.EDGE);

        List<Answer> answers = exchange(call(id, "which-path", "w1", edge, AnsweringThreadFilter.HEADER + ": " + run
                + "-direct\r\n") + post("/v1/sessions/" + id + "/calls?via=controller", edge, "which-path",
                HttpLedger.callJson("w2", "pricing", "quote", HttpLedger.args("w2")),
                AnsweringThreadFilter.HEADER + ": " + run + "-query\r\n"), 2);

        assertThat(answers).extracting(Answer::status).containsExactly(200, 200);
        assertThat(AnsweringThreadFilter.THREADS).as("Micronaut's filters never saw the plain call")
                .doesNotContainKey(run + "-direct");
        assertThat(AnsweringThreadFilter.THREADS.get(run + "-query")).as("a target with a query goes to the controller")
                .contains("eventLoop");
    }

    @Test
    void aSessionlessCallIsServedAheadOfMicronautAndAnsweredAsTheControllerAnswersIt() throws Exception {
        String run = java.util.UUID.randomUUID().toString();
        String edge = ledger.credential(Role.EDGE);
        long before = ledger.receipts();

        List<Answer> kept = exchange(clientCall("sessionless-direct", "c1", edge, AnsweringThreadFilter.HEADER + ": "
                + run + "-direct\r\n") + clientCall("sessionless-direct", "c2", edge, ""), 2);
        // Closing: Micronaut's controller serves the first request again, whose answer repeats the stored decision.
        Answer controller = exchange(clientCall("sessionless-direct", "c1", edge, AnsweringThreadFilter.HEADER + ": "
                + run + "-closing\r\nConnection: close\r\n"), 1).get(0);

        assertThat(kept).extracting(Answer::status).containsExactly(200, 200);
        assertThat(kept.get(0).json().path("decision").asText()).isEqualTo("admitted");
        assertThat(kept.get(1).json().path("callId").asText()).isEqualTo("c2");
        assertThat(kept.get(0).json().path("receipt").path("client").asText())
                .isEqualTo(io.mcpledger.domain.session.TokenRefs.of(HttpLedger.clientToken("sessionless-direct")));
        assertThat(controller.body()).isEqualTo(kept.get(0).body());
        assertThat(controller.headers().get("content-type")).isEqualTo(kept.get(0).headers().get("content-type"));
        assertThat(AnsweringThreadFilter.THREADS).as("Micronaut's filters never saw the kept-alive call")
                .doesNotContainKey(run + "-direct").containsKey(run + "-closing");
        assertThat(ledger.receipts()).as("two calls admitted, the repeat appended nothing").isEqualTo(before + 2);
    }

    @Test
    void aSessionlessCallTheControllerWouldRefuseGetsItsRefusal() throws Exception {
        String edge = ledger.credential(Role.EDGE);
        String withoutEdge = "{\"requestId\":\"r1\",\"principal\":\"alice\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2026-07-28\",\"server\":\"pricing\",\"tool\":\"quote\","
                + "\"operation\":\"invoke\",\"argumentsSha256\":\"" + HttpLedger.args("r1") + "\"}";
        long before = ledger.receipts();

        List<Answer> kept = exchange(post("/v1/calls", edge, "refused", withoutEdge, "")
                + clientCall("refused", "r2", ledger.credential(Role.AUDITOR), ""), 2);
        List<Answer> closing = List.of(
                exchange(post("/v1/calls", edge, "refused", withoutEdge, "Connection: close\r\n"), 1).get(0),
                exchange(clientCall("refused", "r2", ledger.credential(Role.AUDITOR), "Connection: close\r\n"), 1)
                        .get(0));

        assertThat(kept).extracting(Answer::status).containsExactly(400, 403);
        assertThat(kept.get(0).json().path("error").path("message").asText()).contains("field edge is required");
        assertThat(kept).extracting(Answer::body).isEqualTo(closing.stream().map(Answer::body).toList());
        assertThat(ledger.receipts()).as("nothing appended").isEqualTo(before);
    }

    @Test
    void aCallToAnUnknownSessionGetsTheControllersRefusal() throws Exception {
        String edge = ledger.credential(Role.EDGE);
        String unknown = "s-" + "0".repeat(32) + "-" + "0".repeat(32);

        Answer direct = exchange(call(unknown, "nobody", "u1", edge, ""), 1).get(0);
        Answer controller = exchange(call(unknown, "nobody", "u1", edge, "Connection: close\r\n"), 1).get(0);

        assertThat(direct.status()).isEqualTo(controller.status()).isEqualTo(404);
        assertThat(direct.body()).isEqualTo(controller.body());
    }

    @Test
    void onlyATargetOfUnreservedSessionIdIsTakenDirectly() {
        assertThat(DirectCalls.sessionId("/v1/sessions/s-1a_b.c~d/calls")).isEqualTo("s-1a_b.c~d");
        assertThat(DirectCalls.sessionId("/v1/sessions//calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/s-1/calls?x=1")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/s%2D1/calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/s+1/calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/s-1/calls/r-1/outcome")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/a/b/calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/../calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/./calls")).isNull();
        assertThat(DirectCalls.sessionId("/v1/sessions/.../calls")).isEqualTo("...");
        assertThat(DirectCalls.sessionId("/v1/calls")).isNull();
        assertThat(DirectCalls.callTarget("/v1/calls")).isTrue();
        assertThat(DirectCalls.callTarget("/v1/sessions/s-1/calls")).isTrue();
        assertThat(DirectCalls.callTarget("/v1/calls?x=1")).isFalse();
        assertThat(DirectCalls.callTarget("/v1/calls/")).isFalse();
        assertThat(DirectCalls.callTarget("/v1/calls/r-1/outcome")).isFalse();
    }

    /** A sessionless call (contract section 15) of {@code client} through edge "direct-edge". */
    private static String clientCall(String client, String requestId, String credential, String extraHeaders) {
        return post("/v1/calls", credential, client,
                HttpLedger.clientCallJson(client, requestId, "quote", "direct-edge", "i-1"), extraHeaders);
    }

    private static String call(String id, String client, String requestId, String credential, String extraHeaders) {
        return post("/v1/sessions/" + id + "/calls", credential, client,
                HttpLedger.callJson(requestId, "pricing", "quote", HttpLedger.args(requestId)), extraHeaders);
    }

    private static String post(String target, String credential, String client, String json, String extraHeaders) {
        return "POST " + target + " HTTP/1.1\r\nHost: ledger\r\nAuthorization: Bearer " + credential + "\r\n"
                + SessionController.CLIENT_TOKEN + ": " + HttpLedger.clientToken(client)
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + json.getBytes(StandardCharsets.UTF_8).length
                + "\r\n" + extraHeaders + "\r\n" + json;
    }

    record Answer(int status, Map<String, String> headers, String body) {
        JsonNode json() throws IOException {
            return Canonical.parse(body);
        }
    }

    /** Writes {@code requests} in one go on a new connection and reads {@code count} answers from it. */
    private static List<Answer> exchange(String requests, int count) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", ledger.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(requests.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            List<Answer> answers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                answers.add(readAnswer(in));
            }
            return answers;
        }
    }

    private static Answer readAnswer(InputStream in) throws IOException {
        String statusLine = line(in);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line; !(line = line(in)).isEmpty(); ) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
        return new Answer(Integer.parseInt(statusLine.split(" ")[1]), headers,
                new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("the connection closed in the middle of an answer: " + bytes);
            }
            if (b != '\r') {
                bytes.write(b);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
