package io.mcpledger.domain.log;

import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.SigningKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * C2SP signed notes with Ed25519 ({@code c2sp.org/signed-note}): a text ending in a newline, a blank line, and
 * signature lines {@code — <name> <base64(key hash || signature)>}. The signature covers the text's UTF-8 bytes.
 */
public final class SignedNote {
    private static final String DASH = "\u2014 ";
    private static final int MAX_SIGNATURES = 100;

    private SignedNote() {
    }

    /** Signs {@code text} (non-empty, ending in a newline) under the note name {@code name}. */
    public static String sign(String text, String name, SigningKey key, byte[] keyHash) {
        if (text.isEmpty() || !text.endsWith("\n") || text.contains("\n\n")) {
            throw new IllegalArgumentException("a note text is non-empty lines, each ending in a newline");
        }
        byte[] signature = key.sign(text.getBytes(StandardCharsets.UTF_8));
        byte[] tagged = new byte[keyHash.length + signature.length];
        System.arraycopy(keyHash, 0, tagged, 0, keyHash.length);
        System.arraycopy(signature, 0, tagged, keyHash.length, signature.length);
        return text + "\n" + DASH + name + " " + Base64.getEncoder().encodeToString(tagged) + "\n";
    }

    /**
     * The text of {@code note} once a signature by {@code key} verifies. Signatures by other keys are skipped, as
     * C2SP says; a signature that names this key and fails, or none by it at all, is refused.
     */
    public static String open(String note, VerifierKey key) throws InvalidProofException {
        if (note.startsWith("\n")) {
            throw new InvalidProofException("the note's text is empty");
        }
        int split = note.lastIndexOf("\n\n");
        if (split < 0) {
            throw new InvalidProofException("the note has no blank line between its text and its signatures");
        }
        String text = note.substring(0, split + 1);
        String signatures = note.substring(split + 2);
        if (text.isEmpty() || text.startsWith("\n")) {
            throw new InvalidProofException("the note's text is empty");
        }
        if (text.chars().anyMatch(c -> c < 0x20 && c != '\n')) {
            throw new InvalidProofException("the note's text holds a control character");
        }
        if (signatures.isEmpty() || !signatures.endsWith("\n")) {
            throw new InvalidProofException("the note's signature lines are missing or do not end in a newline");
        }
        String[] lines = signatures.substring(0, signatures.length() - 1).split("\n", -1);
        if (lines.length > MAX_SIGNATURES) {
            throw new InvalidProofException("the note has " + lines.length + " signatures, more than " + MAX_SIGNATURES);
        }
        byte[] message = text.getBytes(StandardCharsets.UTF_8);
        boolean verified = false;
        for (String line : lines) {
            if (!line.startsWith(DASH)) {
                throw new InvalidProofException("the signature line '" + line + "' does not start with '\u2014 '");
            }
            String[] parts = line.substring(DASH.length()).split(" ", -1);
            if (parts.length != 2 || parts[0].isEmpty() || parts[0].contains("+")
                    || line.chars().anyMatch(c -> c < 0x20 || Character.isWhitespace(c) && c != ' ')) {
                throw new InvalidProofException("the signature line '" + line + "' is not '\u2014 <name> <signature>'");
            }
            byte[] tagged = StrictBase64.decode(parts[1]);
            if (tagged == null) {
                throw new InvalidProofException("the signature of '" + parts[0] + "' is not standard base64");
            }
            if (tagged.length < 5) {
                throw new InvalidProofException("the signature of '" + parts[0] + "' is too short");
            }
            if (!parts[0].equals(key.name()) || !MessageDigest.isEqual(Arrays.copyOf(tagged, 4), key.keyHash())) {
                continue;
            }
            if (!key.key().verify(message, Arrays.copyOfRange(tagged, 4, tagged.length))) {
                throw new InvalidProofException("the signature of '" + key.name() + "' does not verify: the note was"
                        + " changed or not signed by this key");
            }
            verified = true;
        }
        if (!verified) {
            throw new InvalidProofException("the note carries no signature by " + key.name() + "+"
                    + Hex.encode(key.keyHash()));
        }
        return text;
    }
}
