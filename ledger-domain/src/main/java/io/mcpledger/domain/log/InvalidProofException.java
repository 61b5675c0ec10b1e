package io.mcpledger.domain.log;

/** A Merkle proof, checkpoint or signed note that does not verify, with the reason. */
public class InvalidProofException extends Exception {
    public InvalidProofException(String message) {
        super(message);
    }
}
