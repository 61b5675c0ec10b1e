package io.mcpledger.domain.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.receipt.LedgerVectors;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract section 6 promises that stock tools verify receipts with {@code public-key.pem}; OpenSSL is the
 * stock tool an auditor is most likely to have. Skipped where {@code openssl} is not on the PATH, unless
 * {@code LEDGER_TEST_INTEROP=required} (as {@code .ci/run} sets): then it fails, so that CI never passes without it.
 */
class OpenSslInteropTest {
    private static final long TIMEOUT_SECONDS = 30;

    @TempDir
    Path dir;

    private final SigningKey key = SigningKey.generate(new SecureRandom());

    @BeforeAll
    static void requireOpenSsl() {
        if (!ExternalTools.onPath("openssl")) {
            ExternalTools.requireOrSkip("OpenSSL's check", "openssl is not on the PATH (Debian package openssl)",
                    "install OpenSSL 3 to run it");
        }
    }

    @Test
    void opensslReadsAGeneratedPrivateKey() throws Exception {
        Path privatePem = write("signing-key.pem", key.privatePem());

        Result result = openssl("pkey", "-in", privatePem.toString(), "-noout");

        assertThat(result.exit()).as(result.stderr()).isZero();
    }

    @Test
    void opensslDerivesThePublicPemTheProjectWrites() throws Exception {
        Path privatePem = write("signing-key.pem", key.privatePem());

        Result result = openssl("pkey", "-in", privatePem.toString(), "-pubout");

        assertThat(result.exit()).as(result.stderr()).isZero();
        assertThat(result.stdout()).isEqualTo(key.publicKey().pem());
    }

    @Test
    void opensslVerifiesAReceiptSignedByTheProject() throws Exception {
        Receipt receipt = signedReceipt();
        byte[] signature = Base64.getDecoder().decode(receipt.sig());

        Result result = verifyWithOpenssl(receipt.signingInput(), signature);

        assertThat(result.exit()).as(result.stdout() + result.stderr()).isZero();
        assertThat(result.stdout()).isEqualTo("Signature Verified Successfully\n");
    }

    @Test
    void opensslRefusesAReceiptSignatureWithOneByteFlipped() throws Exception {
        Receipt receipt = signedReceipt();
        byte[] signature = Base64.getDecoder().decode(receipt.sig());
        signature[10] ^= 0x01;

        Result result = verifyWithOpenssl(receipt.signingInput(), signature);

        assertThat(result.exit()).as(result.stdout()).isNotZero();
    }

    @Test
    void opensslRefusesAReceiptWhoseSigningInputChangedByOneByte() throws Exception {
        Receipt receipt = signedReceipt();
        byte[] signingInput = receipt.signingInput();
        signingInput[signingInput.length - 2] ^= 0x01;

        Result result = verifyWithOpenssl(signingInput, Base64.getDecoder().decode(receipt.sig()));

        assertThat(result.exit()).as(result.stderr()).isEqualTo(1);
        assertThat(result.stdout()).isEqualTo("Signature Verification Failure\n");
    }

    @Test
    void opensslRefusesAReceiptSignedByAnotherKey() throws Exception {
        Receipt receipt = signedReceipt();
        byte[] signature = SigningKey.generate(new SecureRandom()).sign(receipt.signingInput());

        Result result = verifyWithOpenssl(receipt.signingInput(), signature);

        assertThat(result.exit()).as(result.stderr()).isEqualTo(1);
        assertThat(result.stdout()).isEqualTo("Signature Verification Failure\n");
    }

    private Receipt signedReceipt() {
        ReceiptSigner signer = new ReceiptSigner(key, LogKeys.defaultOrigin(key.publicKey().raw()));
        return signer.sign(LedgerVectors.draftOf(
                LedgerVectors.receipt("rcpt-test-0002-call.admitted").get("receipt")));
    }

    private Result verifyWithOpenssl(byte[] signingInput, byte[] signature) throws Exception {
        Path publicPem = write("public-key.pem", key.publicKey().pem());
        Path input = Files.write(dir.resolve("signing-input"), signingInput);
        Path sig = Files.write(dir.resolve("sig"), signature);
        return openssl("pkeyutl", "-verify", "-pubin", "-inkey", publicPem.toString(), "-rawin",
                "-in", input.toString(), "-sigfile", sig.toString());
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.US_ASCII);
    }

    private record Result(int exit, String stdout, String stderr) {
    }

    private Result openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "openssl", ".out");
        Path err = Files.createTempFile(dir, "openssl", ".err");
        // Output goes to files so a stuck openssl cannot block us on a full pipe before the timeout.
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("openssl " + String.join(" ", args) + " did not finish in " + TIMEOUT_SECONDS + " s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
