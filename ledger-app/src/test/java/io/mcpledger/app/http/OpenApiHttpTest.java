package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.testing.TestDatabases;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /openapi.json}: served without a credential, an OpenAPI 3.1 document that describes exactly the routes
 * the running server has (every method and path of Micronaut's router, and nothing else), whose every {@code $ref}
 * resolves, and whose security matches the ledger's: no credential for the public endpoints, a bearer one elsewhere.
 */
class OpenApiHttpTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    /** The endpoints that answer without a credential. */
    private static final Set<String> PUBLIC = Set.of("GET /health", "GET /openapi.json", "GET /v1/log/public-key");

    @TempDir
    Path state;

    @Test
    void theDocumentDescribesExactlyTheRoutesTheServerHas() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(TestDatabases.Kind.H2, state)) {
            Reply reply = ledger.request("GET", "/openapi.json").send().assertStatus(200);
            assertThat(reply.header("Content-Type")).startsWith("application/json");
            JsonNode doc = reply.json();
            assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
            assertThat(doc.path("info").path("title").asText()).isNotEmpty();

            Set<String> documented = new TreeSet<>();
            for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
                path.getValue().fieldNames().forEachRemaining(method -> {
                    if (METHODS.contains(method)) {
                        documented.add(method.toUpperCase() + " " + path.getKey());
                    }
                });
            }
            // Micronaut answers HEAD wherever it answers GET; the document leaves those implicit HEADs out.
            List<String> routes = ledger.server().routes();
            Set<String> served = new TreeSet<>(routes.stream().filter(route -> !(route.startsWith("HEAD ")
                    && routes.contains("GET " + route.substring(5)))).toList());
            assertThat(documented).as("the documented operations").containsExactlyElementsOf(served);

            for (String operation : documented) {
                String[] parts = operation.split(" ", 2);
                JsonNode op = doc.path("paths").path(parts[1]).path(parts[0].toLowerCase());
                assertThat(op.path("summary").asText()).as("%s has a summary", operation).isNotEmpty();
                assertThat(op.path("responses").size()).as("%s has responses", operation).isPositive();
                boolean open = op.has("security") && op.path("security").isEmpty();
                assertThat(open).as("%s needs a credential exactly when the ledger asks for one", operation)
                        .isEqualTo(PUBLIC.contains(operation));
                for (String variable : variables(parts[1])) {
                    assertThat(parameters(doc, op)).as("%s declares its path parameter %s", operation, variable)
                            .contains("path:" + variable);
                }
            }
            List<String> refs = new ArrayList<>();
            collectRefs(doc, refs);
            assertThat(refs).isNotEmpty().allSatisfy(ref -> assertThat(doc.at(ref.substring(1)).isMissingNode())
                    .as("%s resolves", ref).isFalse());
        }
    }

    @Test
    void theDocumentNeedsNoCredential() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(TestDatabases.Kind.H2, state)) {
            assertThat(ledger.request("GET", "/openapi.json").bearer("not-a-credential").send().status())
                    .isEqualTo(200);
            assertThat(ledger.request("GET", "/v1/log/checkpoint").send().status())
                    .as("while the log's own endpoints still do").isEqualTo(401);
        }
    }

    private static List<String> variables(String path) {
        List<String> names = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{(\\w+)}").matcher(path);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** The operation's parameters as {@code in:name}, with {@code $ref}s followed. */
    private static List<String> parameters(JsonNode doc, JsonNode op) {
        List<String> names = new ArrayList<>();
        for (JsonNode p : op.path("parameters")) {
            JsonNode param = p.has("$ref") ? doc.at(p.path("$ref").asText().substring(1)) : p;
            names.add(param.path("in").asText() + ":" + param.path("name").asText());
        }
        return names;
    }

    private static void collectRefs(JsonNode node, List<String> refs) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if (field.getKey().equals("$ref")) {
                    refs.add(field.getValue().asText());
                } else {
                    collectRefs(field.getValue(), refs);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collectRefs(child, refs));
        }
    }
}
