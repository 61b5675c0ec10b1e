package io.mcpledger.app.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Tests that run others' programs (curl and jq for the README's tour, Node.js and npm for the TypeScript SDK's clients):
 * where {@code LEDGER_TEST_INTEROP=required} (CI) a missing program fails the test; elsewhere it is skipped with a line
 * saying why.
 */
public final class InteropTools {
    private InteropTools() {
    }

    /** Whether {@code program} is an executable in a directory of the PATH. */
    public static boolean onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, program)));
    }

    /**
     * Fails where the interop tests are required, else skips the test class: {@code what} cannot run because
     * {@code why}.
     */
    public static void requireOrSkip(String what, String why) {
        if ("required".equals(System.getenv("LEDGER_TEST_INTEROP"))) {
            throw new IllegalStateException(what + " is required here (LEDGER_TEST_INTEROP=required) but " + why);
        }
        System.err.println(what + " skipped: " + why);
        Assumptions.abort(what + " skipped: " + why);
    }
}
