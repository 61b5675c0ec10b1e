package io.mcpledger.domain.crypto;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests that run others' tools (OpenSSL, Go) on the ledger's output: where {@code LEDGER_TEST_INTEROP=required} (CI)
 * a missing tool fails the test; elsewhere it is skipped with a line saying why.
 */
public final class ExternalTools {
    /** The environment variable that makes a missing tool a failure instead of a skip. */
    public static final String REQUIRED = "LEDGER_TEST_INTEROP";

    private ExternalTools() {
    }

    /** Whether {@code program} is an executable in a directory of the PATH. */
    public static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Fails where the interop checks are required, else skips the class: {@code what} is missing because {@code why};
     * {@code install} says how to get it.
     */
    public static void requireOrSkip(String what, String why, String install) {
        if ("required".equals(System.getenv(REQUIRED))) {
            throw new IllegalStateException(what + " is required here (" + REQUIRED + "=required) but " + why);
        }
        String skipped = what + " skipped: " + why + "; " + install;
        System.err.println(skipped);
        Assumptions.abort(skipped);
    }
}
