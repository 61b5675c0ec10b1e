package io.mcpledger.app.statedir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {
    private static final List<String> EVERYTHING = List.of("signing-key.pem", "public-key.pem",
            "credentials/edge.token", "credentials/operator.token", "credentials/auditor.token",
            "credential-hashes.json", "origin");

    @TempDir
    Path temp;

    private Path dir() {
        return temp.resolve("state/ledger");
    }

    private StateDirectory state() {
        return new StateDirectory(dir());
    }

    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static String read(Path path) throws Exception {
        return Files.readString(path);
    }

    @Test
    void initCreatesTheDirectoryAndEveryFileInOrder() throws Exception {
        InitReport report = state().init(null);

        assertThat(report.directory()).isEqualTo(dir().toAbsolutePath());
        assertThat(report.directoryCreated()).isTrue();
        assertThat(report.created()).containsExactlyElementsOf(EVERYTHING);
        assertThat(report.tightened()).isEmpty();
        for (String file : EVERYTHING) {
            assertThat(dir().resolve(file)).isRegularFile();
        }
    }

    @Test
    void directoriesAreMode0700AndSecretsMode0600() throws Exception {
        state().init(null);

        assertThat(mode(dir())).isEqualTo("rwx------");
        assertThat(mode(dir().resolve("credentials"))).isEqualTo("rwx------");
        assertThat(mode(dir().resolve("signing-key.pem"))).isEqualTo("rw-------");
        assertThat(mode(dir().resolve("credential-hashes.json"))).isEqualTo("rw-------");
        for (Role role : Role.values()) {
            assertThat(mode(dir().resolve("credentials/" + role.id() + ".token"))).isEqualTo("rw-------");
        }
        assertThat(mode(dir().resolve("public-key.pem"))).isEqualTo("rw-r--r--");
        assertThat(mode(dir().resolve("origin"))).isEqualTo("rw-r--r--");
    }

    @Test
    void thePublicKeyFileIsThePublicHalfOfTheSigningKey() throws Exception {
        state().init(null);

        SigningKey key = SigningKey.fromPem(read(dir().resolve("signing-key.pem")));

        assertThat(read(dir().resolve("public-key.pem"))).isEqualTo(key.publicKey().pem());
    }

    @Test
    void eachTokenIsTheRoleFollowedByThirtyTwoRandomBytesInBase64Url() throws Exception {
        state().init(null);

        for (Role role : Role.values()) {
            assertThat(read(state().tokenFile(role))).matches(role.id() + "_[A-Za-z0-9_-]{43}");
        }
        assertThat(read(state().tokenFile(Role.EDGE))).isNotEqualTo(read(state().tokenFile(Role.OPERATOR)));
    }

    @Test
    void theHashFileHoldsOnlyTheSha256OfEachToken() throws Exception {
        state().init(null);

        String stored = read(dir().resolve("credential-hashes.json"));
        JsonNode hashes = new ObjectMapper().readTree(stored);
        assertThat(hashes.size()).isEqualTo(3);
        for (Role role : Role.values()) {
            String token = read(state().tokenFile(role));
            assertThat(hashes.get(role.id()).asText()).isEqualTo(Sha256.hexOfUtf8(token));
            assertThat(stored).doesNotContain(token);
        }
    }

    @Test
    void theDefaultOriginDerivesFromThePublicKey() throws Exception {
        InitReport report = state().init(null);

        SigningKey key = SigningKey.fromPem(read(dir().resolve("signing-key.pem")));
        String expected = LogKeys.defaultOrigin(key.publicKey().raw());
        assertThat(report.origin()).isEqualTo(expected);
        assertThat(read(dir().resolve("origin"))).isEqualTo(expected + "\n");
    }

    @Test
    void anOriginGivenAtCreationIsStored() throws Exception {
        InitReport report = state().init("ledger.example.com/prod");

        assertThat(report.origin()).isEqualTo("ledger.example.com/prod");
        assertThat(state().load(null).origin()).isEqualTo("ledger.example.com/prod");
    }

    @Test
    void loadReturnsTheKeyOriginAndCredentialHashes() throws Exception {
        InitReport report = state().init(null);

        LoadedState loaded = state().load(null);

        assertThat(loaded.directory()).isEqualTo(dir().toAbsolutePath());
        assertThat(loaded.signingKey().publicKey())
                .isEqualTo(SigningKey.fromPem(read(dir().resolve("signing-key.pem"))).publicKey());
        assertThat(loaded.origin()).isEqualTo(report.origin());
        assertThat(loaded.credentialHashes()).isEqualTo(Map.of(
                Role.EDGE, Sha256.hexOfUtf8(read(state().tokenFile(Role.EDGE))),
                Role.OPERATOR, Sha256.hexOfUtf8(read(state().tokenFile(Role.OPERATOR))),
                Role.AUDITOR, Sha256.hexOfUtf8(read(state().tokenFile(Role.AUDITOR)))));
    }

    @Test
    void initAgainChangesNothing() throws Exception {
        state().init(null);
        Map<String, String> before = contents();

        InitReport again = state().init(null);

        assertThat(again.unchanged()).isTrue();
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void initDoesNotRecreateADeletedTokenFile() throws Exception {
        state().init(null);
        Files.delete(state().tokenFile(Role.OPERATOR));

        InitReport again = state().init(null);

        assertThat(again.unchanged()).isTrue();
        assertThat(state().tokenFile(Role.OPERATOR)).doesNotExist();
    }

    @Test
    void loadWorksAfterEveryTokenFileIsDeleted() throws Exception {
        state().init(null);
        String edgeHash = Sha256.hexOfUtf8(read(state().tokenFile(Role.EDGE)));
        for (Role role : Role.values()) {
            Files.delete(state().tokenFile(role));
        }

        LoadedState loaded = state().load(null);

        assertThat(loaded.credentialHashes().get(Role.EDGE)).isEqualTo(edgeHash);
    }

    @Test
    void loadAcceptsTheStoredOriginGivenAgain() throws Exception {
        state().init("ledger.example.com/prod");

        assertThat(state().load("ledger.example.com/prod").origin()).isEqualTo("ledger.example.com/prod");
    }

    @Test
    void loadRefusesADifferentOriginNamingBoth() throws Exception {
        state().init("ledger.example.com/prod");

        assertThatThrownBy(() -> state().load("ledger.example.com/test"))
                .isInstanceOf(StateException.class)
                .hasMessage("the ledger state at " + dir() + " was created with origin 'ledger.example.com/prod', not "
                        + "'ledger.example.com/test'; omit --origin, or pass --origin ledger.example.com/prod");
    }

    @Test
    void initRefusesADifferentOriginAndChangesNothing() throws Exception {
        state().init("ledger.example.com/prod");
        Files.delete(state().tokenFile(Role.EDGE));
        Map<String, String> before = contents();

        assertThatThrownBy(() -> state().init("ledger.example.com/test"))
                .isInstanceOf(StateException.class)
                .hasMessage("the ledger state at " + dir() + " was created with origin 'ledger.example.com/prod', not "
                        + "'ledger.example.com/test'; omit --origin, or pass --origin ledger.example.com/prod");
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void refusesAnOriginWithAPlusOrSpace() {
        for (String bad : List.of("ledger+1", "ledger one", "", "ledger\n")) {
            assertThatThrownBy(() -> state().init(bad))
                    .isInstanceOf(StateException.class)
                    .hasMessage("origin '" + bad + "' is not valid: use 1 to 256 visible ASCII characters without "
                            + "'+', e.g. ledger.example.com/prod");
        }
        assertThat(dir()).doesNotExist();
    }

    @Test
    void loadRefusesACorruptSigningKey() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("signing-key.pem"), "not a key\n");
        String domainProblem = domainProblemWith("not a key\n");

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("signing-key.pem") + " is not a valid Ed25519 private key (" + domainProblem
                        + "); restore it from a backup");
    }

    @Test
    void initRefusesACorruptSigningKeyRatherThanReplacingIt() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("signing-key.pem"), "not a key\n");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessageStartingWith(dir().resolve("signing-key.pem") + " is not a valid Ed25519 private key (");
        assertThat(read(dir().resolve("signing-key.pem"))).isEqualTo("not a key\n");
    }

    @Test
    void loadRefusesAPublicKeyOfAnotherKey() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("public-key.pem"), SigningKey.generate(new SecureRandom()).publicKey().pem());

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("public-key.pem") + " does not belong to " + dir().resolve("signing-key.pem")
                        + "; delete it and run 'ledger-app init --state " + dir() + "' to write it again from "
                        + "signing-key.pem");
    }

    @Test
    void initWritesADeletedPublicKeyAgain() throws Exception {
        state().init(null);
        String publicPem = read(dir().resolve("public-key.pem"));
        Files.delete(dir().resolve("public-key.pem"));

        InitReport again = state().init(null);

        assertThat(again.created()).containsExactly("public-key.pem");
        assertThat(read(dir().resolve("public-key.pem"))).isEqualTo(publicPem);
    }

    @Test
    void initRefusesToReplaceAMissingKeyOnceTheStateIsInUse() throws Exception {
        state().init(null);
        Files.delete(dir().resolve("signing-key.pem"));

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("signing-key.pem") + " is missing, but the ledger state at " + dir()
                        + " has already been initialised; restore the file from a backup (a new one would not match what the "
                        + "ledger already signed and handed out)");
        assertThat(dir().resolve("signing-key.pem")).doesNotExist();
    }

    @Test
    void initRefusesToReplaceAMissingHashFileOnceTheStateIsInUse() throws Exception {
        state().init(null);
        Files.delete(dir().resolve("credential-hashes.json"));

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credential-hashes.json") + " is missing, but the ledger state at " + dir()
                        + " has already been initialised; restore the file from a backup (a new one would not match what the "
                        + "ledger already signed and handed out)");
    }

    @Test
    void initRefusesToWriteAnOriginForADatabaseThatHasNone() throws Exception {
        state().init(null);
        Files.delete(dir().resolve("origin"));
        Files.writeString(dir().resolve("ledger.mv.db"), "database");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("origin") + " is missing, but the ledger state at " + dir()
                        + " has already been initialised; restore the file from a backup (a new one would not match what the "
                        + "ledger already signed and handed out)");
    }

    @Test
    void initCompletesAFirstInitThatStoppedBeforeStoringHashes() throws Exception {
        state().init(null);
        String edgeToken = read(state().tokenFile(Role.EDGE));
        String key = read(dir().resolve("signing-key.pem"));
        Files.delete(dir().resolve("origin"));
        Files.delete(dir().resolve("credential-hashes.json"));
        Files.delete(state().tokenFile(Role.AUDITOR));

        InitReport again = state().init(null);

        assertThat(again.created()).containsExactly("credentials/auditor.token", "credential-hashes.json", "origin");
        assertThat(read(dir().resolve("signing-key.pem"))).isEqualTo(key);
        assertThat(read(state().tokenFile(Role.EDGE))).isEqualTo(edgeToken);
        assertThat(state().load(null).credentialHashes().get(Role.EDGE)).isEqualTo(Sha256.hexOfUtf8(edgeToken));
    }

    @Test
    void initRefusesATokenFileThatDoesNotHoldACredential() throws Exception {
        Files.createDirectories(dir().resolve("credentials"));
        Files.writeString(dir().resolve("credentials/edge.token"), "operator_abc");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credentials/edge.token") + " does not hold an edge credential ('edge_' and "
                        + "43 base64url characters); delete it and run 'ledger-app init --state " + dir()
                        + "' to create a new one");
    }

    @Test
    void initRefusesAFileWhereTheStateDirectoryShouldBe() throws Exception {
        Files.createDirectories(dir().getParent());
        Files.writeString(dir(), "oops");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir() + " is a file, but should be a directory; move it away or pass a different --state");
    }

    @Test
    void initRefusesAFileWhereAParentDirectoryShouldBe() throws Exception {
        Files.writeString(temp.resolve("state"), "oops");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage("cannot create " + dir() + ": " + temp.resolve("state") + " is in the way and is not a "
                        + "directory; move it away or pass a different --state");
    }

    @Test
    void initRefusesAFileWhereTheCredentialsDirectoryShouldBe() throws Exception {
        Files.createDirectories(dir());
        Files.writeString(dir().resolve("credentials"), "oops");

        assertThatThrownBy(() -> state().init(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credentials") + " is a file, but should be a directory; move it away or "
                        + "pass a different --state");
    }

    @Test
    void loadRefusesADirectoryWhereTheKeyFileShouldBe() throws Exception {
        state().init(null);
        Files.delete(dir().resolve("signing-key.pem"));
        Files.createDirectory(dir().resolve("signing-key.pem"));

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("signing-key.pem") + " is a directory, but should be a file; move it away "
                        + "and run 'ledger-app init --state " + dir() + "'");
    }

    @Test
    void loadRefusesAMissingStateDirectory() {
        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage("there is no ledger state at " + dir() + "; run 'ledger-app init --state " + dir()
                        + "' to create it");
    }

    @Test
    void loadRefusesAStateMissingItsHashFile() throws Exception {
        state().init(null);
        Files.delete(dir().resolve("credential-hashes.json"));

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credential-hashes.json") + " is missing; run 'ledger-app init --state "
                        + dir() + "' to complete a new state, or restore the file from a backup");
    }

    @Test
    void loadRefusesAHashFileThatIsNotJson() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("credential-hashes.json"), "{edge:");

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credential-hashes.json") + " is damaged: it is not JSON; restore it from a "
                        + "backup");
    }

    @Test
    void loadRefusesAHashThatIsNotLowercaseHex() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("credential-hashes.json"), "{\"edge\": \"" + "AB".repeat(32) + "\"}");

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credential-hashes.json") + " is damaged: the 'edge' hash is not 64 "
                        + "lowercase hex characters; restore it from a backup");
    }

    @Test
    void loadRefusesAnUnknownRoleInTheHashFile() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("credential-hashes.json"), "{\"admin\": \"" + "ab".repeat(32) + "\"}");

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("credential-hashes.json") + " is damaged: 'admin' is not a role; restore it "
                        + "from a backup");
    }

    @Test
    void loadRefusesAnInvalidStoredOrigin() throws Exception {
        state().init(null);
        Files.writeString(dir().resolve("origin"), "two words\n");

        assertThatThrownBy(() -> state().load(null))
                .isInstanceOf(StateException.class)
                .hasMessage(dir().resolve("origin") + " does not hold a valid origin (1 to 256 visible ASCII "
                        + "characters without '+'); restore it from a backup");
    }

    @Test
    void initTakesGroupAndOtherAccessAwayAndSaysSo() throws Exception {
        state().init(null);
        Files.setPosixFilePermissions(dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir().resolve("signing-key.pem"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(state().tokenFile(Role.EDGE), PosixFilePermissions.fromString("rw-rw-rw-"));

        InitReport again = state().init(null);

        assertThat(again.tightened()).containsExactly(". 0755 -> 0700", "signing-key.pem 0644 -> 0600",
                "credentials/edge.token 0666 -> 0600");
        assertThat(mode(dir())).isEqualTo("rwx------");
        assertThat(mode(dir().resolve("signing-key.pem"))).isEqualTo("rw-------");
        assertThat(mode(state().tokenFile(Role.EDGE))).isEqualTo("rw-------");
    }

    @Test
    void loadTakesGroupAndOtherAccessAwayFromSecrets() throws Exception {
        state().init(null);
        Files.setPosixFilePermissions(dir().resolve("credential-hashes.json"), PosixFilePermissions.fromString("rw-r--r--"));

        state().load(null);

        assertThat(mode(dir().resolve("credential-hashes.json"))).isEqualTo("rw-------");
    }

    @Test
    void aStricterModeIsKept() throws Exception {
        state().init(null);
        Files.setPosixFilePermissions(dir().resolve("signing-key.pem"), PosixFilePermissions.fromString("r--------"));

        InitReport again = state().init(null);

        assertThat(again.unchanged()).isTrue();
        assertThat(mode(dir().resolve("signing-key.pem"))).isEqualTo("r--------");
    }

    private static String domainProblemWith(String pem) {
        try {
            SigningKey.fromPem(pem);
            throw new AssertionError("the domain accepted " + pem);
        } catch (InvalidKeyException e) {
            return e.getMessage();
        }
    }

    private Map<String, String> contents() throws Exception {
        Map<String, String> files = new java.util.TreeMap<>();
        try (var walk = Files.walk(dir())) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir().relativize(p).toString(), new String(Files.readAllBytes(p), StandardCharsets.UTF_8)
                        + " " + mode(p));
            }
        }
        return files;
    }
}
