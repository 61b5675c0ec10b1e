package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json}: the OpenAPI 3.1 description of the ledger's HTTP API, for anyone (no credential), so that
 * an edge written elsewhere can generate its client. The document is {@code openapi.json} on the class path, written
 * by hand beside {@code docs/api.md}; {@code OpenApiHttpTest} holds it to the routes the server really has.
 */
@Requires(notEnv = Environments.EDGE)
@Controller("/openapi.json")
class OpenApiController {
    static final String RESOURCE = "/openapi.json";

    private final byte[] document;

    OpenApiController() {
        try (InputStream in = OpenApiController.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Get
    HttpResponse<byte[]> document() {
        return HttpResponse.ok(document).contentType(MediaType.APPLICATION_JSON_TYPE);
    }
}
