package io.mcpledger.verify;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.ByteBuffer;

/** Reads the small input files (keys, checkpoints, proofs, receipts); any failure is a usage error (exit 2). */
final class Inputs {
    /** Larger than any key, checkpoint, proof or receipt answer the ledger writes. */
    static final int MAX_SMALL_FILE = 1 << 20;

    private Inputs() {
    }

    static String readText(Path file, String what) {
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw new UsageException("cannot read " + what + " " + file + ": it is a directory");
            }
            if (Files.size(file) > MAX_SMALL_FILE) {
                throw new UsageException("cannot read " + what + " " + file + ": larger than 1 MiB, which no "
                        + what + " is");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UsageException("cannot read " + what + " " + file + ": no such file", e);
        } catch (IOException e) {
            throw new UsageException("cannot read " + what + " " + file + ": " + e.getMessage(), e);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new UsageException("cannot read " + what + " " + file + ": it is not UTF-8 text", e);
        }
    }
}
