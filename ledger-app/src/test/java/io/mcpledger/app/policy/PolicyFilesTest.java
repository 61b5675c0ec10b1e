package io.mcpledger.app.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyFilesTest {
    /** The policy of the contract's test vectors (vectors/ledger-vectors.json) ("policy"), whose hash that file states. */
    private static final String VECTOR_HASH = "b699457d17a540e795d3a0599378174fde1c8c19d5d7e1e3a3f3b437b4673809";
    private static final String VECTOR_YAML = """
            capabilities:
              default:            # used unless a capability is named after the principal
                tools:
                  - server: pricing
                    tool: quote
                    operations: [invoke]
                    ttl: 300
                  - server: pricing
                    tool: discount
                    operations: [invoke]
                    ttl: 300
            """;
    private static final String VECTOR_JSON = """
            {"capabilities": {"default": {"tools": [
              {"server": "pricing", "tool": "quote", "operations": ["invoke"], "ttl": 300},
              {"server": "pricing", "tool": "discount", "operations": ["invoke"], "ttl": 300}]}}}
            """;
    private static final String TTL_PROBLEM =
            "'capabilities.default.tools[0].ttl' must be an integer number of seconds from 1 to 316224000";

    @TempDir
    Path dir;

    private static String withTtl(String ttl) {
        return "capabilities:\n  default:\n    tools:\n"
                + "      - {server: pricing, tool: quote, operations: [invoke], ttl: " + ttl + "}\n";
    }

    @Test
    void aYamlFileHasTheHashOfItsJsonForm() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), VECTOR_YAML);

        assertThat(PolicyFiles.read(file).hash()).isEqualTo(VECTOR_HASH);
    }

    @Test
    void aJsonFileReadsToTheSamePolicy() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.json"), VECTOR_JSON);

        assertThat(PolicyFiles.read(file).hash()).isEqualTo(VECTOR_HASH);
    }

    @Test
    void aRequestBodyInYamlOrJsonReadsToTheSamePolicy() throws Exception {
        PolicyDocument yaml = PolicyFiles.parse(VECTOR_YAML);
        PolicyDocument json = PolicyFiles.parse(VECTOR_JSON);

        assertThat(yaml).isEqualTo(json);
        assertThat(yaml.hash()).isEqualTo(VECTOR_HASH);
    }

    @Test
    void aByteOrderMarkIsIgnored() throws Exception {
        assertThat(PolicyFiles.parse("\uFEFF" + VECTOR_YAML).hash()).isEqualTo(VECTOR_HASH);
    }

    @Test
    void aYamlIntegerTtlIsAccepted() throws Exception {
        assertThat(PolicyFiles.parse(withTtl("300")).rulesFor("anyone").get(0).ttlSeconds()).isEqualTo(300);
    }

    @Test
    void aFractionalTtlIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse(withTtl("300.5")))
                .isExactlyInstanceOf(InvalidPolicyException.class)
                .hasMessage(TTL_PROBLEM);
    }

    @Test
    void aTtlWrittenAsAWholeFloatIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse(withTtl("300.0")))
                .isExactlyInstanceOf(InvalidPolicyException.class)
                .hasMessage(TTL_PROBLEM);
    }

    @Test
    void aQuotedTtlIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse(withTtl("\"300\"")))
                .isExactlyInstanceOf(InvalidPolicyException.class)
                .hasMessage(TTL_PROBLEM);
    }

    @Test
    void aYamlSyntaxErrorIsOneLineWithItsPosition() {
        String badIndent = "capabilities:\n  default:\n    tools:\n      - server: pricing\n       tool: quote\n";

        assertThatThrownBy(() -> PolicyFiles.parse(badIndent))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid YAML at line 5, column 8: expected <block end>, but found '<block mapping start>'");
    }

    @Test
    void aTabIndentIsOneLineToo() {
        assertThatThrownBy(() -> PolicyFiles.parse("\t- a\n"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid YAML at line 1, column 1: found character '\\t(TAB)' that cannot start any "
                        + "token. (Do not use \\t(TAB) for indentation)");
    }

    @Test
    void aJsonSyntaxErrorIsOneLineWithItsPosition() {
        assertThatThrownBy(() -> PolicyFiles.parse("{\"capabilities\": {\"default\": {\"tools\": []},}}"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid JSON at line 1, column 44: Unexpected character ('}' (code 125)): was expecting "
                        + "double-quote to start field name");
    }

    @Test
    void aKeyGivenTwiceInYamlIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse("capabilities: {}\ncapabilities:\n  default: {tools: []}\n"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid YAML at line 2, column 13: Duplicate field 'capabilities'");
    }

    @Test
    void aKeyGivenTwiceInJsonIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse("{\"capabilities\": {}, \"capabilities\": {}}"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid JSON at line 1, column 36: Duplicate field 'capabilities'");
    }

    @Test
    void aSecondYamlDocumentIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse("capabilities: {}\n---\ncapabilities: {}\n"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid YAML: a second document follows the policy; a policy is one document");
    }

    @Test
    void textAfterAJsonPolicyIsRefused() {
        assertThatThrownBy(() -> PolicyFiles.parse("{\"capabilities\": {}} {}"))
                .isExactlyInstanceOf(PolicySyntaxException.class)
                .hasMessage("not valid JSON: more text follows the policy's closing '}'");
    }

    @Test
    void anEmptyPolicyIsRefused() {
        for (String empty : new String[] {"", "  \n", "# only a comment\n", "---\n"}) {
            assertThatThrownBy(() -> PolicyFiles.parse(empty))
                    .isExactlyInstanceOf(PolicySyntaxException.class)
                    .hasMessage("the policy is empty; it needs a 'capabilities' map");
        }
    }

    @Test
    void aYamlScalarIsNotAPolicy() {
        assertThatThrownBy(() -> PolicyFiles.parse("just words"))
                .isExactlyInstanceOf(InvalidPolicyException.class)
                .hasMessage("policy must be an object with a 'capabilities' map");
    }

    @Test
    void anInvalidFileNamesTheFileAndTheProblem() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), withTtl("300.5"));

        assertThatThrownBy(() -> PolicyFiles.read(file))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + file + ": " + TTL_PROBLEM);
    }

    @Test
    void aFileWithBadSyntaxNamesTheFileAndThePosition() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), "capabilities: [\n");

        assertThatThrownBy(() -> PolicyFiles.read(file))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + file + ": not valid YAML at line 2, column 1: expected the node content, "
                        + "but found '<stream end>'");
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("nope.yaml");

        assertThatThrownBy(() -> PolicyFiles.read(file))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + file + ": no such file");
    }

    @Test
    void aDirectoryIsNotAPolicyFile() {
        assertThatThrownBy(() -> PolicyFiles.read(dir))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + dir + ": it is a directory, not a file");
    }

    @Test
    void aFileThatIsNotUtf8IsRefused() throws Exception {
        Path file = Files.write(dir.resolve("policy.yaml"), new byte[] {'a', ':', ' ', (byte) 0xC3, (byte) 0x28});

        assertThatThrownBy(() -> PolicyFiles.read(file))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + file + ": it is not UTF-8 text");
    }

    @Test
    void aFileOverOneMebibyteIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("policy.yaml"), "#".repeat(PolicyFiles.MAX_BYTES + 1));

        assertThatThrownBy(() -> PolicyFiles.read(file))
                .isInstanceOf(PolicyFileException.class)
                .hasMessage("policy file " + file + ": it is larger than 1048576 bytes; a policy is a small YAML or "
                        + "JSON file");
    }
}
