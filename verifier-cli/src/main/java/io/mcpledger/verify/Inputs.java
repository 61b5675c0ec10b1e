package io.mcpledger.verify;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import io.mcpledger.domain.receipt.Canonical;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the small input files (keys, checkpoints, proofs, receipts). A file that cannot be read is a usage error
 * (exit 2); a file that is read but is not what it should be (too large, not UTF-8) is content to judge (exit 1).
 */
final class Inputs {
    /** Larger than any key, checkpoint, proof or receipt answer the ledger writes. */
    static final int MAX_SMALL_FILE = 1 << 20;

    /**
     * JSON given to verify (a receipt, an answer, a proof) is read strictly: a second value after the first, or a
     * member named twice, makes it ambiguous, so it is refused rather than read one way.
     */
    static final ObjectReader STRICT_JSON = Canonical.JSON.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Inputs() {
    }

    /** A file's text, or why its content is not text (problem), for the caller to report as invalid. */
    record Content(String text, String problem) {
    }

    static Content read(Path file, String what) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_SMALL_FILE + 1);
        } catch (NoSuchFileException e) {
            throw new UsageException("cannot read " + what + " " + file + ": no such file", e);
        } catch (IOException e) {
            throw new UsageException("cannot read " + what + " " + file + ": "
                    + (Files.isDirectory(file) ? "it is a directory" : e.getMessage()), e);
        }
        if (bytes.length > MAX_SMALL_FILE) {
            return new Content(null, "larger than 1 MiB, which no " + what + " is");
        }
        try {
            return new Content(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString(), null);
        } catch (CharacterCodingException e) {
            return new Content(null, "not UTF-8 text");
        }
    }

    /** A file the user gave as a key: anything but readable text is a usage error. */
    static String readGiven(Path file, String what) {
        Content content = read(file, what);
        if (content.problem() != null) {
            throw new UsageException("cannot read " + what + " " + file + ": " + content.problem());
        }
        return content.text();
    }
}
