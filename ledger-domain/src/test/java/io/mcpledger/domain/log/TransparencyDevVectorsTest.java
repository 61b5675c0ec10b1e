package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every RFC 6962/9162 proof vector of the transparency-dev {@code merkle} project (test resources
 * {@code vectors/merkle/}, a verbatim copy of the vectors published with the contract): each proof
 * verifies exactly when the vector says it should, and the proofs built from the RFC 6962 test tree are the
 * vectors' proofs.
 */
class TransparencyDevVectorsTest {
    private static final String ROOT = "/vectors/merkle";
    /** 98 inclusion and 98 consistency files; a smaller count means the walk lost some and the test is vacuous. */
    private static final int VECTOR_FILES = 196;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Decoder B64 = Base64.getDecoder();

    /** The leaves of the RFC 6962 test tree, which the transparency-dev happy paths are cut from (leaf 0 is empty). */
    private static final List<byte[]> TEST_TREE = Stream.of("", "00", "10", "2021", "3031", "40414243",
            "5051525354555657", "606162636465666768696a6b6c6d6e6f").map(HexFormat.of()::parseHex).toList();

    /** The happy paths whose hashes come from the test tree; the other two use stand-in hashes. */
    private static final List<String> BUILT_FROM_TEST_TREE = List.of(
            "consistency/0/happy-path.json", "consistency/1/happy-path.json", "consistency/2/happy-path.json",
            "consistency/3/happy-path.json", "consistency/4/happy-path.json",
            "inclusion/0/happy-path.json", "inclusion/1/happy-path.json", "inclusion/2/happy-path.json",
            "inclusion/3/happy-path.json", "inclusion/4/happy-path.json");

    @Test
    void everyVectorFileIsFound() {
        assertThat(vectors("inclusion")).hasSize(98);
        assertThat(vectors("consistency")).hasSize(98);
        assertThat(vectors("inclusion").size() + vectors("consistency").size()).isEqualTo(VECTOR_FILES);
    }

    @TestFactory
    Stream<DynamicTest> inclusionProofVerifiesIffTheVectorWantsNoError() {
        return vectors("inclusion").stream().map(v -> dynamicTest(v.name(), () -> {
            JsonNode j = v.json();
            long index = j.get("leafIdx").asLong();
            long size = j.get("treeSize").asLong();
            byte[] leafHash = bytes(j.get("leafHash"));
            List<byte[]> proof = proof(j.get("proof"));
            byte[] root = bytes(j.get("root"));
            if (j.get("wantErr").asBoolean()) {
                assertThatThrownBy(() -> Merkle.verifyInclusion(index, size, leafHash, proof, root))
                        .as(v.name()).isInstanceOf(InvalidProofException.class);
            } else {
                assertThatCode(() -> Merkle.verifyInclusion(index, size, leafHash, proof, root))
                        .as(v.name()).doesNotThrowAnyException();
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> consistencyProofVerifiesIffTheVectorWantsNoError() {
        return vectors("consistency").stream().map(v -> dynamicTest(v.name(), () -> {
            JsonNode j = v.json();
            long size1 = j.get("size1").asLong();
            long size2 = j.get("size2").asLong();
            List<byte[]> proof = proof(j.get("proof"));
            byte[] root1 = bytes(j.get("root1"));
            byte[] root2 = bytes(j.get("root2"));
            if (j.get("wantErr").asBoolean()) {
                assertThatThrownBy(() -> Merkle.verifyConsistency(size1, size2, proof, root1, root2))
                        .as(v.name()).isInstanceOf(InvalidProofException.class);
            } else {
                assertThatCode(() -> Merkle.verifyConsistency(size1, size2, proof, root1, root2))
                        .as(v.name()).doesNotThrowAnyException();
            }
        }));
    }

    @Test
    void leafZeroOfTheRfc6962TestTreeIsTheVectorsLeafHash() {
        JsonNode happy = vector("inclusion/1/happy-path.json").json();
        assertThat(happy.get("leafIdx").asLong()).isZero();
        assertThat(Merkle.leafHash(TEST_TREE.get(0))).isEqualTo(bytes(happy.get("leafHash")));
    }

    @Test
    void happyPathsBuiltFromTheTestTreeAreExactlyTheListedOnes() {
        List<String> happy = new ArrayList<>();
        List<String> fromTestTree = new ArrayList<>();
        for (Vector v : Stream.concat(vectors("consistency").stream(), vectors("inclusion").stream()).toList()) {
            if (!v.json().get("wantErr").asBoolean()) {
                happy.add(v.name());
                if (fromTestTree(v.json())) {
                    fromTestTree.add(v.name());
                }
            }
        }
        assertThat(happy).hasSize(12);
        assertThat(fromTestTree).containsExactlyElementsOf(BUILT_FROM_TEST_TREE);
    }

    @TestFactory
    Stream<DynamicTest> proofBuiltFromTheTestTreeIsTheVectorsProof() {
        Map<String, byte[]> nodes = new HashMap<>();
        CompactRange tree = CompactRange.empty();
        TEST_TREE.forEach(leaf -> tree.append(Merkle.leafHash(leaf), (level, index, hash) -> nodes.put(level + "/" + index, hash)));
        NodeSource source = (level, index) -> {
            byte[] hash = nodes.get(level + "/" + index);
            assertThat(hash).as("node %d/%d", level, index).isNotNull();
            return hash;
        };
        return BUILT_FROM_TEST_TREE.stream().map(TransparencyDevVectorsTest::vector).map(v -> dynamicTest(v.name(), () -> {
            JsonNode j = v.json();
            List<byte[]> built = j.has("leafIdx")
                    ? Merkle.inclusionProof(j.get("leafIdx").asLong(), j.get("treeSize").asLong(), source)
                    : Merkle.consistencyProof(j.get("size1").asLong(), j.get("size2").asLong(), source);
            assertThat(built).as(v.name()).usingElementComparator(Arrays::compare).containsExactlyElementsOf(proof(j.get("proof")));
        }));
    }

    /** Whether the vector's leaf hash and roots are those of the RFC 6962 test tree, so its proof can be built. */
    private static boolean fromTestTree(JsonNode j) {
        if (j.has("leafIdx")) {
            long index = j.get("leafIdx").asLong();
            long size = j.get("treeSize").asLong();
            return size >= 1 && size <= TEST_TREE.size() && index >= 0 && index < size
                    && Arrays.equals(bytes(j.get("leafHash")), Merkle.leafHash(TEST_TREE.get((int) index)))
                    && Arrays.equals(bytes(j.get("root")), testTreeRoot(size));
        }
        long size1 = j.get("size1").asLong();
        long size2 = j.get("size2").asLong();
        return size1 >= 1 && size1 <= size2 && size2 <= TEST_TREE.size()
                && Arrays.equals(bytes(j.get("root1")), testTreeRoot(size1))
                && Arrays.equals(bytes(j.get("root2")), testTreeRoot(size2));
    }

    private static byte[] testTreeRoot(long size) {
        CompactRange range = CompactRange.empty();
        TEST_TREE.subList(0, (int) size).forEach(leaf -> range.append(Merkle.leafHash(leaf)));
        return range.root();
    }

    /** One vector file, named by its path under {@code vectors/merkle}. */
    private record Vector(String name, JsonNode json) {
    }

    private static Vector vector(String name) {
        return vectors(name.substring(0, name.indexOf('/'))).stream()
                .filter(v -> v.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no vector " + name));
    }

    /** Every json file under {@code vectors/merkle/<kind>}, sorted by path. */
    private static List<Vector> vectors(String kind) {
        Path root = resourceDirectory();
        Path dir = root.resolve(kind);
        assertThat(dir).as("vector directory %s", dir).isDirectory();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".json"))
                    .map(p -> root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/"))
                    .sorted()
                    .map(name -> new Vector(name, read(root.resolve(name))))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path resourceDirectory() {
        URL url = TransparencyDevVectorsTest.class.getResource(ROOT);
        assertThat(url).as("%s on the test classpath", ROOT).isNotNull();
        try {
            URI uri = url.toURI();
            if ("jar".equals(uri.getScheme())) {
                try {
                    FileSystems.getFileSystem(uri);
                } catch (FileSystemNotFoundException e) {
                    FileSystems.newFileSystem(uri, Map.of());
                }
            }
            return Path.of(uri);
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot open " + url, e);
        }
    }

    private static JsonNode read(Path file) {
        try {
            return JSON.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Standard base64; the empty string is zero bytes, as in Go. */
    private static byte[] bytes(JsonNode text) {
        return B64.decode(text.asText());
    }

    /** A proof list; JSON {@code null} is the empty proof. */
    private static List<byte[]> proof(JsonNode array) {
        List<byte[]> hashes = new ArrayList<>();
        if (array != null && !array.isNull()) {
            array.forEach(h -> hashes.add(bytes(h)));
        }
        return hashes;
    }
}
