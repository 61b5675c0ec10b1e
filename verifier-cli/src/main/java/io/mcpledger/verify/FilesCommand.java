package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.log.StrictBase64;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
            return invalid(new LogCheck.Problem(e.what, 0, e.getMessage()));
        }
    }

    /** Checks the files with key, prints the valid answer and returns 0; throws Invalid otherwise. */
    abstract int verify(TrustedKey key) throws Invalid;

    /** The hashes of a proof's JSON array, each standard base64; Invalid naming file and the first bad one. */
    static List<byte[]> hashes(JsonNode array, String file, String which) throws Invalid {
        List<byte[]> hashes = new ArrayList<>();
        for (JsonNode h : array) {
            byte[] hash = h.isTextual() ? StrictBase64.decode(h.asText()) : null;
            if (hash == null) {
                throw new Invalid(file, which + " " + h + " is not standard base64");
            }
            hashes.add(hash);
        }
        return hashes;
    }

    /** A file's text, or Invalid naming it when what was read is not text. */
    static String text(Inputs.Content content, Path file) throws Invalid {
        if (content.problem() != null) {
            throw new Invalid(file.toString(), content.problem());
        }
        return content.text();
    }
}
