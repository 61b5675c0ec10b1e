package io.mcpledger.app.log;

import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The export bundle of contract section 9: {@code entries.jsonl} (each entry's exact JCS line, in log order), the signed
 * {@code checkpoint} covering every line, {@code public-key.pem} and the {@code vkey} line.
 */
public final class Bundle {
    public static final String ENTRIES = "entries.jsonl";
    public static final String CHECKPOINT = "checkpoint";
    public static final String PUBLIC_KEY = "public-key.pem";
    public static final String VKEY = "vkey";
    private static final int PAGE = 10_000;

    private Bundle() {
    }

    /**
     * Writes the bundle of the log as {@code sequencer} last published it into {@code out}, an empty or new directory;
     * checks the root of the lines it wrote against the checkpoint before it answers. Returns the entry count.
     */
    public static long write(LogSequencer sequencer, VerifyingKey key, String origin, Path out)
            throws IOException, StorageException {
        LogSequencer.Published checkpoint = sequencer.latest();
        Files.createDirectories(out);
        CompactRange written = CompactRange.empty();
        try (BufferedWriter entries = Files.newBufferedWriter(out.resolve(ENTRIES), StandardCharsets.UTF_8)) {
            while (written.size() < checkpoint.size()) {
                List<String> page = sequencer.entries(written.size(), PAGE);
                if (page.isEmpty()) {
                    throw new IllegalStateException("the log has " + checkpoint.size() + " entries but only "
                            + written.size() + " could be read");
                }
                for (String line : page) {
                    entries.write(line);
                    entries.write('\n');
                    written.append(Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
        if (written.size() != checkpoint.size() || !Arrays.equals(written.root(), checkpoint.root())) {
            throw new IllegalStateException("the " + written.size() + " entries written do not have the root of the"
                    + " checkpoint of size " + checkpoint.size() + "; the bundle in " + out + " is not usable");
        }
        Files.writeString(out.resolve(CHECKPOINT), checkpoint.note(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve(PUBLIC_KEY), key.pem(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve(VKEY), LogKeys.verifierKey(origin, key.raw()) + "\n", StandardCharsets.UTF_8);
        return written.size();
    }
}
