package io.mcpledger.verify;

import io.mcpledger.domain.crypto.LogKeys;
import java.nio.file.Files;
import java.nio.file.Path;

/** The files of an export bundle (contract section 9). */
final class Bundles {
    static final String ENTRIES = "entries.jsonl";
    static final String CHECKPOINT = "checkpoint";
    static final String PUBLIC_KEY = "public-key.pem";
    static final String VKEY = "vkey";

    private Bundles() {
    }

    /** The bundle directory, checked to exist with its entries and checkpoint; a usage error otherwise. */
    static Path require(Path bundle) {
        if (!Files.isDirectory(bundle)) {
            throw new UsageException("cannot read the bundle " + bundle + ": "
                    + (Files.exists(bundle) ? "not a directory" : "no such directory"));
        }
        for (String name : new String[] {ENTRIES, CHECKPOINT}) {
            if (!Files.isRegularFile(bundle.resolve(name))) {
                throw new UsageException("cannot read the bundle " + bundle + ": it has no " + name + " file");
            }
        }
        return bundle;
    }

    static Inputs.Content checkpoint(Path bundle) {
        return Inputs.read(bundle.resolve(CHECKPOINT), "checkpoint");
    }

    /**
     * The bundle's own key files against the key the log verified with, byte for byte, so that no byte of them can
     * change unnoticed: public-key.pem must be that key in the ledger's PEM form, and vkey (when present) its verifier
     * key, with or without a final newline. Null when they agree.
     */
    static LogCheck.Problem keyFiles(Path bundle, TrustedKey key, String origin) {
        Path pem = bundle.resolve(PUBLIC_KEY);
        if (Files.exists(pem)) {
            Inputs.Content content = Inputs.read(pem, "public key");
            if (!key.key().pem().equals(content.text())) {
                return new LogCheck.Problem(PUBLIC_KEY, 0, key.fromBundle()
                        ? "not in the PEM form the ledger writes (bytes of it were changed)"
                        : "is not the key given (" + key.source() + "), or not in the PEM form the ledger writes");
            }
        }
        Path vkey = bundle.resolve(VKEY);
        if (Files.exists(vkey)) {
            Inputs.Content content = Inputs.read(vkey, "verifier key");
            String expected = LogKeys.verifierKey(origin, key.key().raw());
            if (!(expected + "\n").equals(content.text()) && !expected.equals(content.text())) {
                return new LogCheck.Problem(VKEY, 0, "is not the verifier key of the log " + origin + " with "
                        + key.source() + " (expected " + expected + ")");
            }
        }
        return null;
    }
}
