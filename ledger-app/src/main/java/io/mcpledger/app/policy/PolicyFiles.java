package io.mcpledger.app.policy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.mcpledger.app.JsonErrors;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a policy (contract section 5) written as YAML or JSON, from a file for {@code serve --policy} or from a request
 * body for {@code PUT /v1/policy}. Text starting with '{' is read as JSON, anything else as YAML (of which JSON is a
 * subset; the JSON reader only gives clearer errors). Every error is one line.
 */
public final class PolicyFiles {
    /** Far above any real policy; stops {@code --policy /dev/zero} from filling the memory. */
    public static final int MAX_BYTES = 1024 * 1024;

    private static final ObjectMapper JSON = configure(new ObjectMapper());
    private static final ObjectMapper YAML = configure(new YAMLMapper(new YAMLFactory()));

    private PolicyFiles() {
    }

    private static ObjectMapper configure(ObjectMapper mapper) {
        // A key given twice would leave the policy's meaning to parser internals; a second YAML document would be
        // silently ignored. Both are refused.
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        return mapper;
    }

    /** Reads and validates the policy in {@code file}; the message of any failure starts with the file's path. */
    public static PolicyDocument read(Path file) throws PolicyFileException {
        String text;
        try {
            text = decode(readBounded(file));
        } catch (IOException e) {
            throw new PolicyFileException("policy file " + file + ": " + ioReason(e), e);
        }
        try {
            return parse(text);
        } catch (InvalidPolicyException e) {
            throw new PolicyFileException("policy file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses and validates a policy given as text; a {@link PolicySyntaxException} when it is not YAML or JSON, an
     * {@link InvalidPolicyException} when it does not follow contract section 5.
     */
    public static PolicyDocument parse(String text) throws InvalidPolicyException {
        String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
        if (body.isBlank()) {
            throw new PolicySyntaxException("the policy is empty; it needs a 'capabilities' map");
        }
        boolean json = body.stripLeading().startsWith("{");
        JsonNode tree;
        try {
            tree = (json ? JSON : YAML).readTree(body);
        } catch (JsonProcessingException e) {
            if (String.valueOf(e.getOriginalMessage()).startsWith("Trailing token")) {
                throw new PolicySyntaxException(json ? "not valid JSON: more text follows the policy's closing '}'"
                        : "not valid YAML: a second document follows the policy; a policy is one document");
            }
            throw new PolicySyntaxException((json ? "not valid JSON" : "not valid YAML") + describe(e));
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            throw new PolicySyntaxException("the policy is empty; it needs a 'capabilities' map");
        }
        return PolicyDocument.fromJson(tree);
    }

    private static String describe(JsonProcessingException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException yaml) {
                Mark mark = yaml.getProblemMark() != null ? yaml.getProblemMark() : yaml.getContextMark();
                String problem = yaml.getProblem() != null ? yaml.getProblem() : yaml.getContext();
                return (mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1))
                        + ": " + JsonErrors.oneLine(problem);
            }
        }
        return JsonErrors.describe(e);
    }

    private static byte[] readBounded(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new IOException("it is a directory, not a file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                throw new IOException("it is larger than " + MAX_BYTES + " bytes; a policy is a small YAML or JSON file");
            }
            return bytes;
        }
    }

    private static String decode(byte[] bytes) throws IOException {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IOException("it is not UTF-8 text", e);
        }
    }

    private static String ioReason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
