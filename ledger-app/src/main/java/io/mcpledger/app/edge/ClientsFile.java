package io.mcpledger.app.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.mcpledger.app.FileErrors;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.crypto.Hex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The edge's {@code --clients} file (contract section 16): the client tokens it accepts, each as its SHA-256 and the
 * principal it stands for, {@code clients: [{tokenSha256: HEX, principal: alice}]}. The edge never holds a token
 * itself: it hashes what a client sends and looks the hash up here.
 */
public final class ClientsFile {
    private static final ObjectMapper YAML = new YAMLMapper();

    private ClientsFile() {
    }

    /** The clients by token SHA-256; an {@link IllegalArgumentException} with one line naming the problem. */
    public static Map<String, String> read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the clients file " + file + ": " + FileErrors.describe(e));
        }
        JsonNode tree;
        try {
            tree = YAML.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("the clients file " + file + " is not YAML: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        return parse(tree, file.toString());
    }

    static Map<String, String> parse(JsonNode tree, String where) {
        if (tree == null || !tree.isObject() || !tree.path("clients").isArray() || tree.size() != 1) {
            throw new IllegalArgumentException(where + " must hold one member, clients: a list of"
                    + " {tokenSha256: HEX, principal: NAME}");
        }
        Map<String, String> clients = new LinkedHashMap<>();
        int n = 0;
        for (JsonNode client : tree.path("clients")) {
            n++;
            String at = where + ": client " + n;
            if (!client.isObject() || client.size() != 2 || !client.path("tokenSha256").isTextual()
                    || !client.path("principal").isTextual()) {
                throw new IllegalArgumentException(at + " must be {tokenSha256: HEX, principal: NAME} and nothing else");
            }
            String sha = client.path("tokenSha256").asText();
            String principal = client.path("principal").asText();
            if (!Hex.isLowerHex(sha, 64)) {
                throw new IllegalArgumentException(at + ": tokenSha256 must be 64 lowercase hex characters (the SHA-256"
                        + " of the client's bearer token)");
            }
            if (!Identifiers.isIdentifier(principal)) {
                throw new IllegalArgumentException(at + ": principal must be 1 to 256 visible ASCII characters");
            }
            if (clients.put(sha, principal) != null) {
                throw new IllegalArgumentException(at + ": tokenSha256 " + sha + " is listed twice");
            }
        }
        if (clients.isEmpty()) {
            throw new IllegalArgumentException(where + " lists no client: the edge would refuse every request");
        }
        return clients;
    }
}
