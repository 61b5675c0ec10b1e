package io.mcpledger.verify;

import java.nio.file.Files;
import java.nio.file.Path;

/** The files of an export bundle (spec section 9). */
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

    static String checkpoint(Path bundle) {
        return Inputs.readText(bundle.resolve(CHECKPOINT), "checkpoint");
    }
}
