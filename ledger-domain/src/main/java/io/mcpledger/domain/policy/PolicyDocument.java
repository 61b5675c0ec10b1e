package io.mcpledger.domain.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.Identifiers;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A validated policy (contract section 5): named capabilities, each a list of tool rules. The capability
 * named after a principal applies to it; every other principal gets {@code default}. The hash is the
 * SHA-256 of the policy's JCS form.
 */
public final class PolicyDocument {
    public static final String DEFAULT_CAPABILITY = "default";
    public static final String ANY_TOOL = "*";
    /** The longest ttl accepted: ten years, so notAfter stays a sane time. */
    static final long MAX_TTL_SECONDS = 10L * 366 * 24 * 3600;

    /** One rule of a capability, as written in the policy. */
    public record ToolRule(String server, String tool, List<String> operations, long ttlSeconds) {
        public ToolRule {
            operations = List.copyOf(operations);
        }

        boolean allows(String server, String tool, String operation) {
            return this.server.equals(server) && (this.tool.equals(ANY_TOOL) || this.tool.equals(tool))
                    && operations.contains(operation);
        }
    }

    private final ObjectNode json;
    private final String canonical;
    private final String hash;
    private final Map<String, List<ToolRule>> capabilities;

    private PolicyDocument(ObjectNode json, Map<String, List<ToolRule>> capabilities) {
        this.json = json;
        this.canonical = Canonical.jcs(json);
        this.hash = Sha256.hexOfUtf8(canonical);
        this.capabilities = capabilities;
    }

    /** Validates a policy given as a JSON tree (YAML is parsed to this tree first). */
    public static PolicyDocument fromJson(JsonNode tree) throws InvalidPolicyException {
        if (tree == null || !tree.isObject()) {
            throw new InvalidPolicyException("policy must be an object with a 'capabilities' map");
        }
        rejectUnknown(tree, "policy", "capabilities");
        JsonNode caps = tree.get("capabilities");
        if (caps == null || !caps.isObject()) {
            throw new InvalidPolicyException("'capabilities' must be a map of capability names to {tools: [...]}");
        }
        Map<String, List<ToolRule>> capabilities = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> cap : caps.properties()) {
            String where = "capabilities." + cap.getKey();
            requireIdentifier(cap.getKey(), where);
            if (!cap.getValue().isObject()) {
                throw new InvalidPolicyException("'" + where + "' must be an object with 'tools'");
            }
            rejectUnknown(cap.getValue(), where, "tools");
            JsonNode tools = cap.getValue().get("tools");
            if (tools == null || !tools.isArray()) {
                throw new InvalidPolicyException("'" + where + ".tools' must be a list");
            }
            List<ToolRule> rules = new ArrayList<>();
            for (int i = 0; i < tools.size(); i++) {
                rules.add(rule(tools.get(i), where + ".tools[" + i + "]"));
            }
            capabilities.put(cap.getKey(), List.copyOf(rules));
        }
        return new PolicyDocument(((ObjectNode) tree).deepCopy(), capabilities);
    }

    /** Reads the canonical JSON text a {@code PolicyActivated} event stores. */
    public static PolicyDocument fromCanonical(String canonicalJson) throws InvalidPolicyException {
        try {
            return fromJson(Canonical.parse(canonicalJson));
        } catch (IOException e) {
            throw new InvalidPolicyException("policy is not JSON: " + e.getMessage());
        }
    }

    private static ToolRule rule(JsonNode node, String where) throws InvalidPolicyException {
        if (!node.isObject()) {
            throw new InvalidPolicyException("'" + where + "' must be an object");
        }
        rejectUnknown(node, where, "server", "tool", "operations", "ttl");
        String server = text(node, "server", where);
        String tool = text(node, "tool", where);
        JsonNode ops = node.get("operations");
        if (ops == null || !ops.isArray() || ops.isEmpty()) {
            throw new InvalidPolicyException("'" + where + ".operations' must be a non-empty list");
        }
        List<String> operations = new ArrayList<>();
        for (int j = 0; j < ops.size(); j++) {
            if (!ops.get(j).isTextual()) {
                throw new InvalidPolicyException("'" + where + ".operations[" + j + "]' must be a string");
            }
            requireIdentifier(ops.get(j).asText(), where + ".operations[" + j + "]");
            operations.add(ops.get(j).asText());
        }
        JsonNode ttl = node.get("ttl");
        if (ttl == null || !ttl.isIntegralNumber() || !ttl.canConvertToLong()
                || ttl.asLong() < 1 || ttl.asLong() > MAX_TTL_SECONDS) {
            throw new InvalidPolicyException("'" + where + ".ttl' must be an integer number of seconds from 1 to "
                    + MAX_TTL_SECONDS);
        }
        return new ToolRule(server, tool, operations, ttl.asLong());
    }

    private static String text(JsonNode node, String field, String where) throws InvalidPolicyException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new InvalidPolicyException("'" + where + "." + field + "' must be a string");
        }
        requireIdentifier(value.asText(), where + "." + field);
        return value.asText();
    }

    private static void requireIdentifier(String value, String where) throws InvalidPolicyException {
        if (!Identifiers.isIdentifier(value)) {
            throw new InvalidPolicyException("'" + where + "' must be 1 to " + Identifiers.MAX_LENGTH
                    + " visible ASCII characters");
        }
    }

    private static void rejectUnknown(JsonNode node, String where, String... allowed) throws InvalidPolicyException {
        List<String> names = List.of(allowed);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!names.contains(name)) {
                throw new InvalidPolicyException("'" + where + "' has an unknown field '" + name + "'");
            }
        }
    }

    /** Lowercase hex SHA-256 of the JCS form. */
    public String hash() {
        return hash;
    }

    /** The JCS form, as stored with the activation. */
    public String canonicalJson() {
        return canonical;
    }

    /** A copy of the document as a JSON tree. */
    public ObjectNode toJson() {
        return json.deepCopy();
    }

    /** The rules that apply to a principal: its own capability, else {@code default}, else none. */
    public List<ToolRule> rulesFor(String principal) {
        List<ToolRule> own = capabilities.get(principal);
        if (own != null) {
            return own;
        }
        return capabilities.getOrDefault(DEFAULT_CAPABILITY, List.of());
    }

    /** The grants a capability issued at {@code at} carries: each rule with notAfter = at + ttl. */
    public List<Grant> grantsFor(String principal, Instant at) {
        List<Grant> grants = new ArrayList<>();
        for (ToolRule rule : rulesFor(principal)) {
            grants.add(new Grant(rule.server(), rule.tool(), rule.operations(), at.plusSeconds(rule.ttlSeconds())));
        }
        return grants;
    }

    /** True when the policy, as it stands, still lets this principal use the tool. */
    public boolean allows(String principal, String server, String tool, String operation) {
        return rulesFor(principal).stream().anyMatch(r -> r.allows(server, tool, operation));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PolicyDocument other && canonical.equals(other.canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }
}
