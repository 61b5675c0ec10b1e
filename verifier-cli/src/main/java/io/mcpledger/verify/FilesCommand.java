package io.mcpledger.verify;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** The commands that check given files, not a bundle ({@code receipt}, {@code consistency}): a key is required. */
abstract class FilesCommand extends VerifyCommand implements Callable<Integer> {
    /** What is wrong with one of the files: the command answers invalid, exit 1. */
    static final class Invalid extends Exception {
        private final String what;

        Invalid(String what, String reason) {
            super(reason);
            this.what = what;
        }
    }

    @Override
    public final Integer call() {
        TrustedKey key = keys.resolve(null, err());
        try {
            return verify(key);
        } catch (Invalid e) {
            if (json) {
                Output.json(out(), Output.invalid(e.what, e.getMessage()));
            } else {
                out().println("INVALID: " + e.what + ": " + e.getMessage());
                out().flush();
            }
            return Exit.INVALID;
        }
    }

    /** Checks the files with key, prints the valid answer and returns 0; throws Invalid otherwise. */
    abstract int verify(TrustedKey key) throws Invalid;

    /** A file's text, or Invalid naming it when what was read is not text. */
    static String text(Inputs.Content content, Path file) throws Invalid {
        if (content.problem() != null) {
            throw new Invalid(file.toString(), content.problem());
        }
        return content.text();
    }
}
