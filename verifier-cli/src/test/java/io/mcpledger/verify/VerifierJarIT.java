package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged ledger-verify.jar, as a compliance team runs it: alone ({@code java -jar}, nothing else on the class
 * path), holding no Axon, Micronaut, H2, Netty or connection pool, and with no network use in the project's classes.
 */
class VerifierJarIT {
    static final Path JAR = Path.of(System.getProperty("ledger.verify.jar", "target/ledger-verify.jar"));

    /** Package prefixes the verifier must not carry: the service's frameworks, database and network stacks. */
    private static final List<String> FORBIDDEN = List.of("org/axonframework/", "io/micronaut/", "org/h2/",
            "io/netty/", "com/zaxxer/", "io/mcpledger/app/", "io/mcpledger/query/", "org/slf4j/", "ch/qos/logback/");

    /** Network APIs the project's own classes must not reference. */
    private static final List<String> NETWORK = List.of("java/net/Socket", "java/net/ServerSocket", "java/net/URL",
            "java/net/http/", "java/net/HttpURLConnection", "java/nio/channels/SocketChannel",
            "java/net/DatagramSocket", "java/net/InetAddress", "java/net/URI");

    @TempDir
    Path dir;

    @Test
    void theJarHoldsNoFrameworkDatabaseOrNetworkStack() throws IOException {
        List<String> names = new ArrayList<>();
        List<String> networked = new ArrayList<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("io.mcpledger.verify.LedgerVerify");
            for (JarEntry entry : java.util.Collections.list(jar.entries())) {
                names.add(entry.getName());
                if (entry.getName().startsWith("io/mcpledger/") && entry.getName().endsWith(".class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                        NETWORK.stream().filter(constants::contains)
                                .forEach(api -> networked.add(entry.getName() + " uses " + api));
                    }
                }
            }
        }
        assertThat(names).contains("io/mcpledger/verify/LedgerVerify.class",
                "io/mcpledger/domain/ledger/LedgerFold.class", "org/bouncycastle/math/ec/rfc8032/Ed25519.class");
        for (String prefix : FORBIDDEN) {
            assertThat(names).as("entries under " + prefix).noneMatch(n -> n.startsWith(prefix));
        }
        assertThat(networked).isEmpty();
    }

    @Test
    void theJarAloneVerifiesAndRejects() throws Exception {
        Path bundle = TestLog.write(dir.resolve("bundle"), TestLog.vectorLines(), TestLog.vectorCheckpoint());
        Result ok = run("log", bundle.toString(), "--key", bundle.resolve("key.pem").toString());
        assertThat(ok.exit()).isEqualTo(Exit.OK);
        assertThat(ok.out()).startsWith("VALID: 6 entries of the log ledger.example/test");

        byte[] entries = Files.readAllBytes(bundle.resolve(Bundles.ENTRIES));
        entries[100] ^= 1;
        Files.write(bundle.resolve(Bundles.ENTRIES), entries);
        Result bad = run("log", bundle.toString(), "--key", bundle.resolve("key.pem").toString());
        assertThat(bad.exit()).isEqualTo(Exit.INVALID);
        assertThat(bad.out()).startsWith("INVALID: entries.jsonl line 1 (entry 0):");

        Result usage = run("log", dir.resolve("missing").toString());
        assertThat(usage.exit()).isEqualTo(Exit.USAGE);
        assertThat(usage.err()).contains("no such directory");
    }

    record Result(int exit, String out, String err) {
    }

    /** Runs the jar alone: java -jar, with an empty CLASSPATH, so nothing but the jar is loaded. */
    static Result run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("CLASSPATH");
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }
}
