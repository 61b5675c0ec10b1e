package io.mcpledger.verify;

import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.log.VerifierKey;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --key PEM | --vkey STR}, taken by every command (contract section 10). */
final class KeyOptions {
    @Option(names = "--key", paramLabel = "PEM",
            description = "The log's Ed25519 public key (SubjectPublicKeyInfo PEM), obtained separately.")
    Path pem;

    @Option(names = "--vkey", paramLabel = "STR",
            description = "The log's C2SP verifier key: <origin>+<keyId hex>+<base64(0x01 || key)>.")
    String vkey;

    /**
     * The key to verify with. Without --key or --vkey, a bundle's own public-key.pem is used and a note on err says
     * so; without a bundle, a key is required.
     */
    TrustedKey resolve(Path bundle, PrintWriter err) {
        if (pem != null && vkey != null) {
            throw new UsageException("give --key or --vkey, not both");
        }
        if (pem != null) {
            return new TrustedKey(readPem(pem, "--key"), null, "the key in " + pem, false);
        }
        if (vkey != null) {
            try {
                VerifierKey parsed = VerifierKey.parse(vkey.strip());
                return new TrustedKey(parsed.key(), parsed.name(), "the verifier key " + parsed.encode(), false);
            } catch (InvalidKeyException e) {
                throw new UsageException("--vkey is not a verifier key: " + e.getMessage(), e);
            }
        }
        if (bundle == null) {
            throw new UsageException("no key: give --key PEM or --vkey STR (there is no bundle to take one from)");
        }
        Path own = bundle.resolve(Bundles.PUBLIC_KEY);
        if (!Files.exists(own)) {
            throw new UsageException("no key: the bundle has no " + Bundles.PUBLIC_KEY + "; give --key PEM or --vkey STR");
        }
        Inputs.Content content = Inputs.read(own, "public key");
        VerifyingKey key;
        try {
            if (content.problem() != null) {
                throw new InvalidKeyException(content.problem());
            }
            key = VerifyingKey.fromPem(content.text());
        } catch (InvalidKeyException e) {
            throw new InvalidBundleException(new LogCheck.Problem(Bundles.PUBLIC_KEY, 0,
                    "not an Ed25519 public key PEM: " + e.getMessage()));
        }
        err.println("ledger-verify: no --key or --vkey given, so the bundle's own " + Bundles.PUBLIC_KEY + " is used."
                + " That shows the bundle is consistent with itself; to show it is the ledger's, bring the key you"
                + " obtained separately (--key PEM or --vkey STR).");
        err.flush();
        return new TrustedKey(key, null, "the bundle's own " + Bundles.PUBLIC_KEY, true);
    }

    private static VerifyingKey readPem(Path file, String what) {
        String text = Inputs.readGiven(file, what);
        try {
            return VerifyingKey.fromPem(text);
        } catch (InvalidKeyException e) {
            throw new UsageException(what + " " + file + " is not an Ed25519 public key PEM: " + e.getMessage(), e);
        }
    }
}
