package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.util.Objects;

/**
 * The chain rule of a session's receipts, in one place for everyone who checks it (the fold, the ledger's append, the
 * offline verifier): {@code seq} runs 1, 2, 3... and {@code prev} is the hash of the receipt before (absent at 1).
 */
public final class SessionChain {
    /** How a receipt can fail to follow the one before it. */
    public enum Break {
        /** The session's first receipt has a seq above 1. */
        STARTS_LATE,
        /** The seq skips past the next one. */
        JUMPS,
        /** The seq repeats one or goes back. */
        GOES_BACK,
        /** The seq is the next one, but prev is not the hash of the receipt before. */
        PREV_BROKEN
    }

    private SessionChain() {
    }

    /**
     * What breaks the chain when {@code r} follows the receipt of {@code headSeq} whose line hashes to {@code headHash}
     * ({@code 0} and null when {@code r} would be the session's first), or null when it follows.
     */
    public static Break check(long headSeq, String headHash, Receipt r) {
        long expected = headSeq + 1;
        if (r.seq() != expected) {
            return headSeq == 0 ? Break.STARTS_LATE : r.seq() > expected ? Break.JUMPS : Break.GOES_BACK;
        }
        return Objects.equals(r.prev(), headHash) ? null : Break.PREV_BROKEN;
    }

    /**
     * Refuses {@code r} with a {@link FoldException} unless it follows the head of {@code stream} ("session ID", or
     * "client TOKENREF"), as {@link #check} decides.
     */
    static void require(String stream, long headSeq, String headHash, Receipt r) {
        Break broken = check(headSeq, headHash, r);
        if (broken == Break.PREV_BROKEN) {
            throw new FoldException(stream + " seq " + r.seq() + ": prev does not match the hash of seq " + headSeq);
        }
        if (broken != null) {
            throw new FoldException(stream + " expects seq " + (headSeq + 1) + " but found " + r.seq());
        }
    }
}
