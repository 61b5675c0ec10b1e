package io.mcpledger.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.LedgerVectors;
import org.junit.jupiter.api.Test;

class PolicyDocumentTest {
    private static final JsonNode VECTOR = LedgerVectors.policy();

    @Test
    void canonicalJsonOfTheVectorPolicyIsTheVectorJcs() throws InvalidPolicyException {
        PolicyDocument policy = PolicyDocument.fromJson(VECTOR.get("document"));

        assertThat(policy.canonicalJson()).isEqualTo(VECTOR.get("jcs").asText());
    }

    @Test
    void hashOfTheVectorPolicyIsTheVectorHash() throws InvalidPolicyException {
        PolicyDocument policy = PolicyDocument.fromJson(VECTOR.get("document"));

        assertThat(policy.hash())
                .isEqualTo("b699457d17a540e795d3a0599378174fde1c8c19d5d7e1e3a3f3b437b4673809")
                .isEqualTo(VECTOR.get("hash").asText());
    }

    @Test
    void hashOfTheVectorPolicyIsTheOneItsActivationReceiptNames() throws InvalidPolicyException {
        JsonNode activation = LedgerVectors.receipt("rcpt-test-0000-policy.activated").get("receipt");

        assertThat(PolicyDocument.fromJson(VECTOR.get("document")).hash())
                .isEqualTo(activation.get("body").get("policy").asText());
    }

    @Test
    void canonicalJsonReadsBackToAnEqualPolicy() throws InvalidPolicyException {
        PolicyDocument policy = PolicyDocument.fromJson(VECTOR.get("document"));

        assertThat(PolicyDocument.fromCanonical(policy.canonicalJson())).isEqualTo(policy);
    }

    @Test
    void refusesAPolicyWithoutCapabilities() {
        assertRefused("{}", "'capabilities' must be a map of capability names to {tools: [...]}");
    }

    @Test
    void refusesAFractionalTtl() {
        assertRefused(withTool("""
                {"server": "pricing", "tool": "quote", "operations": ["invoke"], "ttl": 300.5}"""),
                "'capabilities.default.tools[0].ttl' must be an integer number of seconds from 1 to 316224000");
    }

    @Test
    void refusesATtlWrittenAsAString() {
        assertRefused(withTool("""
                {"server": "pricing", "tool": "quote", "operations": ["invoke"], "ttl": "300"}"""),
                "'capabilities.default.tools[0].ttl' must be an integer number of seconds from 1 to 316224000");
    }

    @Test
    void refusesAZeroTtl() {
        assertRefused(withTool("""
                {"server": "pricing", "tool": "quote", "operations": ["invoke"], "ttl": 0}"""),
                "'capabilities.default.tools[0].ttl' must be an integer number of seconds from 1 to 316224000");
    }

    @Test
    void refusesAnUnknownTopLevelField() {
        assertRefused("""
                {"capabilities": {}, "version": 2}""",
                "'policy' has an unknown field 'version'");
    }

    @Test
    void refusesAnUnknownFieldInAToolRule() {
        assertRefused(withTool("""
                {"server": "pricing", "tool": "quote", "operations": ["invoke"], "ttl": 300, "ttlSeconds": 300}"""),
                "'capabilities.default.tools[0]' has an unknown field 'ttlSeconds'");
    }

    @Test
    void refusesEmptyOperations() {
        assertRefused(withTool("""
                {"server": "pricing", "tool": "quote", "operations": [], "ttl": 300}"""),
                "'capabilities.default.tools[0].operations' must be a non-empty list");
    }

    @Test
    void refusesAToolRuleWithoutServer() {
        assertRefused(withTool("""
                {"tool": "quote", "operations": ["invoke"], "ttl": 300}"""),
                "'capabilities.default.tools[0].server' must be a string");
    }

    private static String withTool(String tool) {
        return "{\"capabilities\": {\"default\": {\"tools\": [" + tool + "]}}}";
    }

    private static void assertRefused(String json, String message) {
        assertThatThrownBy(() -> PolicyDocument.fromJson(Canonical.parse(json)))
                .isInstanceOf(InvalidPolicyException.class)
                .hasMessage(message);
    }
}
