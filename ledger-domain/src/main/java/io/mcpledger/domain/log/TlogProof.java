package io.mcpledger.domain.log;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * A C2SP {@code tlog-proof@v1}: an entry's index, its inclusion proof and the signed checkpoint it leads to, as
 * text that can be checked offline. An optional {@code extra} line is allowed and skipped; the ledger writes none.
 */
public record TlogProof(long index, List<byte[]> hashes, String checkpoint) {
    /** The format's first line. */
    public static final String HEADER = "c2sp.org/tlog-proof@v1";

    public TlogProof {
        hashes = List.copyOf(hashes);
    }

    /** The proof as text: header, {@code index I}, one base64 hash a line, a blank line, the checkpoint. */
    public String format() {
        StringBuilder text = new StringBuilder(HEADER).append('\n').append("index ").append(index).append('\n');
        for (byte[] hash : hashes) {
            text.append(Base64.getEncoder().encodeToString(hash)).append('\n');
        }
        return text.append('\n').append(checkpoint).toString();
    }

    /** Reads a proof; the checkpoint is returned as it stands, for the caller to verify. */
    public static TlogProof parse(String text) throws InvalidProofException {
        String[] lines = text.split("\n", -1);
        int at = 0;
        if (!lines[at++].equals(HEADER)) {
            throw new InvalidProofException("a tlog proof starts with the line '" + HEADER + "'");
        }
        if (at < lines.length && lines[at].startsWith("extra ")) {
            if (StrictBase64.decode(lines[at].substring("extra ".length())) == null) {
                throw new InvalidProofException("the proof's extra line is not standard base64");
            }
            at++;
        }
        if (at >= lines.length || !lines[at].matches("index (0|[1-9][0-9]*)")) {
            throw new InvalidProofException("the proof's line '" + (at < lines.length ? lines[at] : "")
                    + "' is not 'index <decimal>'");
        }
        long index;
        try {
            index = Long.parseLong(lines[at++].substring("index ".length()));
        } catch (NumberFormatException e) {
            throw new InvalidProofException("the proof's index is too large");
        }
        List<byte[]> hashes = new ArrayList<>();
        for (; at < lines.length && !lines[at].isEmpty(); at++) {
            byte[] hash = StrictBase64.decode(lines[at]);
            if (hash == null) {
                throw new InvalidProofException("the proof's line '" + lines[at] + "' is not a base64 hash");
            }
            hashes.add(hash);
        }
        if (at >= lines.length - 1) {
            throw new InvalidProofException("the proof has no blank line before its checkpoint");
        }
        String checkpoint = String.join("\n", Arrays.copyOfRange(lines, at + 1, lines.length));
        if (checkpoint.isEmpty()) {
            throw new InvalidProofException("the proof has no checkpoint after its blank line");
        }
        return new TlogProof(index, hashes, checkpoint);
    }
}
