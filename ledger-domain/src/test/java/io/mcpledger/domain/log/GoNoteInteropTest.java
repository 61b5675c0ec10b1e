package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.crypto.ExternalTools;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Go's {@code golang.org/x/mod/sumdb/note}, the signed-note implementation C2SP grew from and independent of ours,
 * opens the checkpoints the ledger signs with the verifier key it publishes, and refuses them once changed. It runs
 * through {@code src/test/go/noteopen}, built from the Debian packages {@code golang-go} and
 * {@code golang-golang-x-mod-dev} in GOPATH mode, offline. Skipped where they are missing, unless
 * {@code LEDGER_TEST_INTEROP=required} (as {@code .ci/run} sets): then it fails, so that CI never passes without it.
 */
class GoNoteInteropTest {
    private static final Path GOPATH = Path.of("/usr/share/gocode");
    private static final Path NOTE_PACKAGE = GOPATH.resolve("src/golang.org/x/mod/sumdb/note");
    private static final Path SOURCE = Path.of(System.getProperty("basedir", "."), "src/test/go/noteopen/main.go");
    private static final long BUILD_TIMEOUT_SECONDS = 300;
    private static final long RUN_TIMEOUT_SECONDS = 30;
    private static final String OTHER_NAME = "other.example/log";

    @TempDir
    static Path work;
    private static Path noteopen;

    @TempDir
    Path dir;

    private final SecureRandom random = new SecureRandom();
    private final SigningKey key = SigningKey.generate(random);
    private final String origin = LogKeys.defaultOrigin(key.publicKey().raw());
    private final String keyId = LogKeys.keyId(origin, key.publicKey().raw());

    @BeforeAll
    static void buildNoteopen() throws Exception {
        requireOrSkip(ExternalTools.onPath("go"), "go is not on the PATH (Debian package golang-go)");
        requireOrSkip(Files.isRegularFile(NOTE_PACKAGE.resolve("note.go")),
                "Go's note package is not in " + NOTE_PACKAGE + " (Debian package golang-golang-x-mod-dev)");
        noteopen = work.resolve("noteopen");

        Result build = run(work, "go", "build", "-o", noteopen.toString(), SOURCE.toString());

        assertThat(build.exit()).as("go build of %s: %s", SOURCE, build.stderr()).isZero();
    }

    @ParameterizedTest(name = "tree size {0}")
    @ValueSource(longs = {0, 1, 6, 4_294_967_296L, Long.MAX_VALUE})
    void goOpensACheckpointTheLedgerSignedToItsText(long size) throws Exception {
        Checkpoint checkpoint = checkpoint(size);

        Result result = noteopen(vkeyFile(), checkpoint.sign(key));

        assertThat(result.exit()).as(result.stderr()).isZero();
        assertThat(result.stdout()).isEqualTo(checkpoint.body() + "\nverified " + origin + "+" + keyId + "\n");
    }

    @Test
    void goOpensTheContractsVectorCheckpoint() throws Exception {
        String note = LedgerVectors.section("checkpoint").get("text").asText();
        Path vkey = Files.writeString(dir.resolve("vector-vkey"), LedgerVectors.key().get("vkey").asText() + "\n",
                StandardCharsets.UTF_8);

        Result result = noteopen(vkey, note);

        assertThat(result.exit()).as(result.stderr()).isZero();
        assertThat(result.stdout()).isEqualTo("ledger.example/test\n6\ndpA0y59wbYIsRNAEpQFrDpCfGeayzOJUYd59p26kw7E=\n"
                + "\nverified ledger.example/test+adf8fba0\n");
    }

    @Test
    void goRefusesACheckpointWhoseSizeChangedByOneByte() throws Exception {
        String note = checkpoint(6).sign(key);
        String changed = note.replace("\n6\n", "\n7\n");

        Result result = noteopen(vkeyFile(), changed);

        assertThat(changed).hasSameSizeAs(note).isNotEqualTo(note);
        assertRefused(result, "invalid signature for key " + origin + "+" + keyId);
    }

    @Test
    void goRefusesACheckpointWhoseRootChangedByOneByte() throws Exception {
        Checkpoint checkpoint = checkpoint(6);
        String note = checkpoint.sign(key);
        int at = checkpoint.body().lastIndexOf('\n', checkpoint.body().length() - 2) + 1;
        String changed = note.substring(0, at) + (note.charAt(at) == 'A' ? 'B' : 'A') + note.substring(at + 1);

        Result result = noteopen(vkeyFile(), changed);

        assertThat(changed).hasSameSizeAs(note).isNotEqualTo(note);
        assertRefused(result, "invalid signature for key " + origin + "+" + keyId);
    }

    @Test
    void goRefusesACheckpointSignedByAnotherKey() throws Exception {
        String note = checkpoint(6).sign(SigningKey.generate(random));

        Result result = noteopen(vkeyFile(), note);

        assertRefused(result, "note has no verifiable signatures");
    }

    @Test
    void goRefusesAnotherKeysSignatureThatCarriesThisKeysHash() throws Exception {
        Checkpoint checkpoint = checkpoint(6);
        String note = SignedNote.sign(checkpoint.body(), origin, SigningKey.generate(random),
                LogKeys.keyHash(origin, key.publicKey().raw()));

        Result result = noteopen(vkeyFile(), note);

        assertRefused(result, "invalid signature for key " + origin + "+" + keyId);
    }

    @Test
    void goRefusesACheckpointSignedUnderAnotherKeyName() throws Exception {
        Checkpoint checkpoint = checkpoint(6);
        String note = SignedNote.sign(checkpoint.body(), OTHER_NAME, key,
                LogKeys.keyHash(OTHER_NAME, key.publicKey().raw()));

        Result result = noteopen(vkeyFile(), note);

        assertRefused(result, "note has no verifiable signatures");
    }

    /** Go's note package reads only the signed text, so a checkpoint's root need not be a real tree's. */
    private Checkpoint checkpoint(long size) {
        byte[] root = new byte[Merkle.HASH_SIZE];
        random.nextBytes(root);
        return new Checkpoint(origin, size, size == 0 ? Merkle.emptyRoot() : root);
    }

    /** The key's verifier key line as the ledger publishes it (the export bundle's {@code vkey} file). */
    private Path vkeyFile() throws Exception {
        return Files.writeString(dir.resolve("vkey"), LogKeys.verifierKey(origin, key.publicKey().raw()) + "\n",
                StandardCharsets.UTF_8);
    }

    private static void assertRefused(Result result, String error) {
        assertThat(result.exit()).as("exit of noteopen, stdout: %s", result.stdout()).isEqualTo(1);
        assertThat(result.stderr()).isEqualTo(error + "\n");
        assertThat(result.stdout()).isEmpty();
    }

    private Result noteopen(Path vkey, String note) throws Exception {
        Path file = Files.writeString(dir.resolve("note"), note, StandardCharsets.UTF_8);
        return run(dir, noteopen.toString(), vkey.toString(), file.toString());
    }

    private record Result(int exit, String stdout, String stderr) {
    }

    private static Result run(Path in, String... command) throws Exception {
        Path out = Files.createTempFile(in, "run", ".out");
        Path err = Files.createTempFile(in, "run", ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        // GOPATH mode against the Debian package, no network; CI may have no HOME, so the cache is ours.
        builder.environment().putAll(Map.of("GO111MODULE", "off", "GOPATH", GOPATH.toString(), "GOPROXY", "off",
                "GOFLAGS", "", "GOENV", "off", "CGO_ENABLED", "0", "GOCACHE", work.resolve("gocache").toString()));
        // Output goes to files so a stuck process cannot block us on a full pipe before the timeout.
        Process process = builder.start();
        process.getOutputStream().close();
        long timeout = command[0].equals("go") ? BUILD_TIMEOUT_SECONDS : RUN_TIMEOUT_SECONDS;
        if (!process.waitFor(timeout, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in " + timeout + " s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static void requireOrSkip(boolean present, String why) {
        if (!present) {
            ExternalTools.requireOrSkip("Go's note check", why, "install golang-go and golang-golang-x-mod-dev to run"
                    + " it");
        }
    }
}
