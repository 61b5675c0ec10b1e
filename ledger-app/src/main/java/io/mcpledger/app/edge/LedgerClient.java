package io.mcpledger.app.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The edge's side of the ledger's HTTP API (contract sections 4 and 15): one request at a time per caller, with the
 * edge credential and, for a client's requests, the SHA-256 of the client's token, never the token.
 */
final class LedgerClient {
    /** A ledger answer: its status and JSON body (an empty object when it had none). */
    record Reply(int status, JsonNode body) {
        boolean ok() {
            return status / 100 == 2;
        }

        /** The ledger's error message, or the status when the body has none. */
        String message() {
            JsonNode message = body.path("error").path("message");
            return message.isTextual() ? message.asText() : "the ledger answered " + status;
        }

        String code() {
            return body.path("error").path("code").asText("");
        }
    }

    /** The ledger could not be asked or did not answer: nothing is known of what it did. */
    static final class Unreachable extends IOException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final URI base;
    private final String credential;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    LedgerClient(URI base, String credential) {
        this.base = base;
        this.credential = credential;
    }

    Reply post(String path, String clientTokenSha256, ObjectNode body) throws Unreachable {
        return send(request(path, clientTokenSha256)
                .POST(HttpRequest.BodyPublishers.ofByteArray(Canonical.jcsBytes(body))), path);
    }

    Reply delete(String path, String clientTokenSha256) throws Unreachable {
        return send(request(path, clientTokenSha256).DELETE(), path);
    }

    private HttpRequest.Builder request(String path, String clientTokenSha256) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path.startsWith("/") ? path.substring(1) : path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + credential)
                .header("Content-Type", "application/json");
        if (clientTokenSha256 != null) {
            request.header("Client-Token-Sha256", clientTokenSha256);
        }
        return request;
    }

    private Reply send(HttpRequest.Builder request, String path) throws Unreachable {
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new Unreachable("the ledger at " + base + " did not answer " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while asking the ledger " + path, e);
        }
        JsonNode body;
        try {
            body = response.body().length == 0 ? Canonical.JSON.createObjectNode() : Canonical.JSON.readTree(response.body());
        } catch (IOException e) {
            throw new Unreachable("the ledger at " + base + " answered " + path + " with a body that is not JSON", e);
        }
        return new Reply(response.statusCode(), body);
    }
}
