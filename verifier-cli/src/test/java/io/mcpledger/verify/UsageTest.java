package io.mcpledger.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Usage and I/O errors exit 2 with one line naming the problem, and verify nothing. */
class UsageTest {
    @TempDir
    Path dir;

    private Path bundle() {
        return TestLog.write(dir.resolve("bundle"), TestLog.vectorLines(), TestLog.vectorCheckpoint());
    }

    private static void usage(Run run, String message) {
        assertThat(run.exit()).isEqualTo(Exit.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(message);
        assertThat(run.err().strip().lines()).hasSize(1);
    }

    @Test
    void noSubCommandOrAnUnknownOne() {
        usage(Run.of(), "a sub-command is required");
        usage(Run.of("audit"), "Unmatched argument");
    }

    @Test
    void missingOrUnknownArguments() {
        usage(Run.of("log"), "Missing required parameter: 'BUNDLE'");
        usage(Run.of("log", bundle(), "--frobnicate"), "Unknown option: '--frobnicate'");
        usage(Run.of("investigate", bundle()), "Missing required option: '--request-id=ID'");
        usage(Run.of("replay", bundle(), "--upto", "many"), "Invalid value for option '--upto'");
        usage(Run.of("log", bundle(), "--threads", "0"), "--threads must be 1 to 256, not 0");
        usage(Run.of("log", bundle(), "--threads", "600000000"), "--threads must be 1 to 256, not 600000000");
    }

    @Test
    void aMissingBundleOrFileInIt() throws Exception {
        usage(Run.of("log", dir.resolve("nope")), "cannot read the bundle " + dir.resolve("nope") + ": no such directory");
        Path bundle = bundle();
        Files.delete(bundle.resolve(Bundles.CHECKPOINT));
        usage(Run.of("log", bundle), "it has no checkpoint file");
        Path other = TestLog.write(dir.resolve("b2"), TestLog.vectorLines(), TestLog.vectorCheckpoint());
        Files.delete(other.resolve(Bundles.PUBLIC_KEY));
        usage(Run.of("log", other), "no key: the bundle has no public-key.pem; give --key PEM or --vkey STR");
    }

    @Test
    void badKeys() throws Exception {
        Path bundle = bundle();
        usage(Run.of("log", bundle, "--key", dir.resolve("none.pem")), "cannot read --key");
        Path notKey = Files.writeString(dir.resolve("bad.pem"), "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
        usage(Run.of("log", bundle, "--key", notKey), "is not an Ed25519 public key PEM");
        usage(Run.of("log", bundle, "--vkey", "nonsense"), "--vkey is not a verifier key");
        usage(Run.of("log", bundle, "--vkey", TestLog.vkey(), "--key", bundle.resolve("key.pem")),
                "give --key or --vkey, not both");
    }

    @Test
    void helpAndVersionExitZero() {
        Run help = Run.of("--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("log", "receipt", "consistency", "replay", "investigate");
        assertThat(Run.of("log", "--help").out()).contains("--key=PEM", "--vkey=STR", "--json");
    }
}
