package io.mcpledger.domain.log;

import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * A C2SP {@code tlog-checkpoint}: the log's origin, its tree size and its root hash. {@link #sign} makes the
 * signed note the ledger publishes; {@link #open} verifies one and reads it back.
 */
public record Checkpoint(String origin, long size, byte[] root) {
    public Checkpoint {
        Objects.requireNonNull(origin, "origin");
        if (size < 0) {
            throw new IllegalArgumentException("a tree size is at least 0, got " + size);
        }
        if (root.length != Merkle.HASH_SIZE) {
            throw new IllegalArgumentException("a root hash is 32 bytes, got " + root.length);
        }
        root = root.clone();
    }

    @Override
    public byte[] root() {
        return root.clone();
    }

    /** The note text: origin, size and base64 root, a line each. */
    public String body() {
        return origin + "\n" + size + "\n" + Base64.getEncoder().encodeToString(root) + "\n";
    }

    /** The signed checkpoint, with {@code key} under the origin as its note name. */
    public String sign(SigningKey key) {
        return SignedNote.sign(body(), origin, key, LogKeys.keyHash(origin, key.publicKey().raw()));
    }

    /** Verifies a signed checkpoint with {@code key} and reads it; its origin must be the key's name. */
    public static Checkpoint open(String note, VerifierKey key) throws InvalidProofException {
        Checkpoint checkpoint = parseBody(SignedNote.open(note, key));
        if (!checkpoint.origin.equals(key.name())) {
            throw new InvalidProofException("the checkpoint's origin '" + checkpoint.origin
                    + "' is not the key's name '" + key.name() + "'");
        }
        return checkpoint;
    }

    /** Reads a checkpoint's note text; extension lines after the root are allowed and ignored. */
    public static Checkpoint parseBody(String text) throws InvalidProofException {
        String[] lines = text.split("\n", -1);
        if (lines.length < 4 || !lines[lines.length - 1].isEmpty()) {
            throw new InvalidProofException("a checkpoint is at least three lines (origin, size, root), each ending in"
                    + " a newline");
        }
        if (lines[0].isEmpty()) {
            throw new InvalidProofException("the checkpoint's origin line is empty");
        }
        if (!lines[1].matches("0|[1-9][0-9]*")) {
            throw new InvalidProofException("the checkpoint's size '" + lines[1] + "' is not a decimal number");
        }
        long size;
        try {
            size = Long.parseLong(lines[1]);
        } catch (NumberFormatException e) {
            throw new InvalidProofException("the checkpoint's size '" + lines[1] + "' is too large");
        }
        byte[] root = StrictBase64.decode(lines[2]);
        if (root == null) {
            throw new InvalidProofException("the checkpoint's root '" + lines[2] + "' is not standard base64");
        }
        if (root.length != Merkle.HASH_SIZE) {
            throw new InvalidProofException("the checkpoint's root is " + root.length + " bytes; a hash is 32");
        }
        return new Checkpoint(lines[0], size, root);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Checkpoint other && origin.equals(other.origin) && size == other.size
                && Arrays.equals(root, other.root);
    }

    @Override
    public int hashCode() {
        return Objects.hash(origin, size, Arrays.hashCode(root));
    }

    @Override
    public String toString() {
        return "Checkpoint[" + origin + ", " + size + ", " + Base64.getEncoder().encodeToString(root) + "]";
    }
}
