package io.mcpledger.verify;

import io.mcpledger.domain.crypto.VerifyingKey;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.FoldException;
import io.mcpledger.domain.session.SessionChain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Verifies a bundle's log (contract section 10, {@code log}): the checkpoint's signature, then every line in order (JCS
 * form, the receipt schema, its log, keyId and signature; a receipt id used once; each session's (and each client
 * stream's) seq 1, 2, 3... with
 * prev linking), then the lines' count and Merkle root against the checkpoint. The first problem in line order is
 * the answer.
 *
 * <p>The calling thread reads the file in chunks cut after their last newline, and judges the lines in order, while a
 * pool of workers (one per core by default) splits each chunk into lines and does the per-line work that dominates
 * (UTF-8, parsing, the Ed25519 signature, the leaf and receipt hashes), ahead of the judging. A {@link Sink} sees each
 * valid receipt in log order, on the calling thread. With signatures off ({@code --by-root}), the checkpoint's Merkle
 * root alone authenticates the lines.
 */
final class LogCheck {
    /** Bytes read at a time; a worker splits each chunk's whole lines and checks them. */
    private static final int CHUNK = 256 << 10;
    /** Longer lines are not receipts; they are refused without being read whole. */
    static final int MAX_LINE = 1 << 20;
    private static final String TOO_LONG = "the line is longer than " + MAX_LINE + " bytes, which no receipt is";
    /** Batches in flight per worker, so workers never wait for the reader. */
    private static final int AHEAD_PER_WORKER = 4;
    /** Bytes of lines in flight at most (one batch may exceed it alone), so memory stays bounded on any input. */
    private static final long AHEAD_BYTES = 64L << 20;

    /** Receives each receipt that passed every check, in log order (index is 0-based). */
    interface Sink {
        void accept(long index, Receipt receipt) throws FoldException;
    }

    /** What is wrong: at line N (1-based; entry N-1), or in the checkpoint (line 0). */
    record Problem(String file, long line, String reason) {
        String describe() {
            return line > 0 ? file + " line " + line + " (entry " + (line - 1) + "): " + reason : file + ": " + reason;
        }
    }

    /**
     * The outcome: the verified checkpoint (null if it failed), lines read, sessions and client streams (calls made
     * without a session) seen, the first problem.
     */
    record Result(Checkpoint checkpoint, long lines, long sessions, long clients, Problem problem) {
        boolean valid() {
            return problem == null;
        }
    }

    private record Checked(Receipt receipt, byte[] leafHash, String problem) {
    }

    private record Head(long seq, String hash, long line) {
    }

    private LogCheck() {
    }

    /**
     * Verifies entries against checkpointText with key. Reading entries fails with an IOException (a usage error for
     * the caller); everything wrong with the contents is the returned problem. With signatures false each receipt's
     * own signature is not checked, and the lines are authenticated by the signed checkpoint's Merkle root alone
     * (which binds every byte of every line it covers).
     */
    static Result run(Path entries, String checkpointText, TrustedKey key, Sink sink, Progress progress, int workers,
            boolean signatures)
            throws IOException {
        String origin = key.name() != null ? key.name() : firstLine(checkpointText);
        Checkpoint checkpoint;
        try {
            VerifierKey verifierKey = key.forOrigin(origin);
            checkpoint = Checkpoint.open(checkpointText, verifierKey);
        } catch (InvalidProofException e) {
            return new Result(null, 0, 0, 0, new Problem(Bundles.CHECKPOINT, 0, "does not verify: " + e.getMessage()));
        }
        Run run = new Run(checkpoint, signatures ? key.key() : null, key.keyId(origin), origin, sink, progress,
                Files.size(entries) / 256);
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "ledger-verify-worker");
            t.setDaemon(true);
            return t;
        });
        try (InputStream in = open(entries)) {
            return run.verify(in, pool, Math.max(1, Math.min(workers, 1024)) * AHEAD_PER_WORKER);
        } finally {
            pool.shutdownNow();
            progress.done();
        }
    }

    private static InputStream open(Path entries) throws IOException {
        try {
            return Files.newInputStream(entries);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(entries.toString(), null, "no such file");
        }
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }

    /** One verification: the state of the in-order judging. */
    private static final class Run {
        private final Checkpoint checkpoint;
        /** The key receipts' signatures are checked with; null when the checkpoint's root alone authenticates them. */
        private final VerifyingKey key;
        private final String keyId;
        private final String origin;
        private final Sink sink;
        private final Progress progress;
        private final Map<String, Long> ids;
        /** Each stream's head, by "session ID" or "client TOKENREF". */
        private final Map<String, Head> chains;
        private long sessions;
        private long clients;
        private final CompactRange tree = CompactRange.empty();
        private long lines;

        Run(Checkpoint checkpoint, VerifyingKey key, String keyId, String origin, Sink sink, Progress progress,
                long expectedLines) {
            // Sized for the file (receipts are some hundreds of bytes), so the maps are not rebuilt as they grow.
            int capacity = (int) Math.min(1 << 22, Math.max(16, expectedLines * 4 / 3));
            this.ids = new HashMap<>(capacity);
            this.chains = new HashMap<>(Math.max(16, capacity / 8));
            this.checkpoint = checkpoint;
            this.key = key;
            this.keyId = keyId;
            this.origin = origin;
            this.sink = sink;
            this.progress = progress;
        }

        Result verify(InputStream in, ExecutorService pool, int ahead) throws IOException {
            if (checkpoint.size() == 0 && !Arrays.equals(tree.root(), checkpoint.root())) {
                return new Result(checkpoint, 0, 0, 0, rootProblem()); // later lines are compared as they are added
            }
            ChunkReader reader = new ChunkReader(in);
            ArrayDeque<CompletableFuture<Checked[]>> inFlight = new ArrayDeque<>();
            ArrayDeque<Chunk> inFlightChunks = new ArrayDeque<>();
            long inFlightBytes = 0;
            long judgedBytes = 0;
            boolean more = true;
            while (more || !inFlight.isEmpty()) {
                while (more && inFlight.size() < ahead && (inFlight.isEmpty() || inFlightBytes < AHEAD_BYTES)) {
                    Chunk chunk = reader.next();
                    if (chunk == null) {
                        more = false;
                        break;
                    }
                    inFlight.add(CompletableFuture.supplyAsync(() -> checkAll(chunk), pool));
                    inFlightChunks.add(chunk);
                    inFlightBytes += chunk.length();
                }
                if (inFlight.isEmpty()) {
                    break;
                }
                Checked[] done = inFlight.poll().join();
                Chunk chunk = inFlightChunks.poll();
                inFlightBytes -= chunk.length();
                judgedBytes += chunk.length();
                for (int i = 0; i < done.length; i++) {
                    boolean noNewline = chunk.unterminated() && i == done.length - 1;
                    Problem problem = judge(done[i], noNewline);
                    if (problem != null) {
                        inFlight.forEach(f -> f.cancel(true));
                        return new Result(checkpoint, lines, sessions, clients, problem);
                    }
                    progress.update(lines, judgedBytes);
                }
            }
            return new Result(checkpoint, lines, sessions, clients, finish());
        }

        /** Splits a chunk into its lines and checks each: run on a worker. */
        private Checked[] checkAll(Chunk chunk) {
            if (chunk.tooLong()) {
                return new Checked[] {new Checked(null, null, TOO_LONG)};
            }
            List<Checked> out = new ArrayList<>(chunk.length() / 256 + 1);
            CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            byte[] data = chunk.data();
            int start = 0;
            while (start < chunk.length()) {
                if (Thread.currentThread().isInterrupted()) {
                    break; // the judge stopped at an earlier problem and will not read these
                }
                int end = start;
                while (end < chunk.length() && data[end] != '\n') {
                    end++;
                }
                out.add(check(data, start, end - start, utf8));
                start = end + 1;
            }
            return out.toArray(new Checked[0]);
        }

        private static boolean isAscii(byte[] data, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                if (data[i] < 0) {
                    return false;
                }
            }
            return true;
        }

        /** The per-line checks that need no other line: run on a worker. */
        private Checked check(byte[] data, int offset, int length, CharsetDecoder utf8) {
            if (length > MAX_LINE) {
                return new Checked(null, null, TOO_LONG);
            }
            if (length == 0) {
                return new Checked(null, null, "the line is empty");
            }
            String text;
            try {
                // Most lines are ASCII, which decodes as itself; only the others need the strict UTF-8 decoder.
                text = isAscii(data, offset, length) ? new String(data, offset, length, StandardCharsets.ISO_8859_1)
                        : utf8.decode(ByteBuffer.wrap(data, offset, length)).toString();
            } catch (CharacterCodingException e) {
                return new Checked(null, null, "not UTF-8");
            }
            Receipt receipt;
            try {
                receipt = Receipt.parse(text);
            } catch (InvalidReceiptException e) {
                return new Checked(null, null, "not a valid receipt: " + e.getMessage());
            }
            if (!origin.equals(receipt.ledger())) {
                return new Checked(null, null, "receipt " + receipt.id() + " is of the log '" + receipt.ledger()
                        + "', not '" + origin + "'");
            }
            String unsigned = TrustedKey.signatureProblem(receipt, keyId, key);
            if (unsigned != null) {
                return new Checked(null, null, unsigned);
            }
            receipt.hash();
            return new Checked(receipt, Merkle.leafHash(data, offset, length), null);
        }

        /** The checks that need earlier lines, in order: null when the line is good. */
        private Problem judge(Checked checked, boolean noNewline) {
            long line = ++lines;
            if (line > checkpoint.size()) {
                // The first checkpoint.size() lines already matched its root when the last of them was added.
                return new Problem(Bundles.ENTRIES, line, "not covered by the checkpoint, which is for the first "
                        + checkpoint.size() + " lines only: the checkpoint is stale, or lines were appended after it");
            }
            String reason = checked.problem();
            if (reason == null) {
                reason = judgeInOrder(checked.receipt(), line);
            }
            if (reason == null && noNewline) {
                reason = "the line has no newline at its end: the file is truncated";
            } else if (reason != null && noNewline) {
                reason += " (the last line has no newline at its end: the file looks truncated)";
            }
            if (reason != null) {
                return new Problem(Bundles.ENTRIES, line, reason);
            }
            tree.append(checked.leafHash());
            if (tree.size() == checkpoint.size() && !Arrays.equals(tree.root(), checkpoint.root())) {
                return rootProblem();
            }
            return null;
        }

        private Problem rootProblem() {
            return new Problem(Bundles.ENTRIES, 0, "the Merkle root of the first " + checkpoint.size() + " lines is"
                    + " not the checkpoint's: every line is validly signed and every session chain holds, so lines of"
                    + " different sessions were swapped or moved, or lines were replaced by other validly signed ones");
        }

        private String judgeInOrder(Receipt receipt, long line) {
            Long first = ids.putIfAbsent(receipt.id(), line);
            if (first != null) {
                return "receipt id " + receipt.id() + " already appears on line " + first
                        + " (a duplicated or repeated line)";
            }
            if (receipt.session() != null || receipt.client() != null) {
                String chained = chain(receipt, line);
                if (chained != null) {
                    return chained;
                }
            }
            if (sink != null) {
                try {
                    sink.accept(line - 1, receipt);
                } catch (FoldException e) {
                    return "the history does not hold together: " + e.getMessage();
                } catch (IllegalArgumentException | IllegalStateException e) {
                    // A body the fold cannot read (a grant's time that is not a time, say): only a changed line, or a
                    // key holder, could put one there.
                    return "the fold cannot apply it: " + e.getMessage();
                }
            }
            return null;
        }

        /**
         * The chain's rule is {@link SessionChain}'s, for a session and for a client stream alike; what is said here
         * names the lines a reader should look at.
         */
        private String chain(Receipt receipt, long line) {
            String session = receipt.client() != null ? "client " + receipt.client() : "session " + receipt.session();
            Head head = chains.get(session);
            SessionChain.Break broken = SessionChain.check(head == null ? 0 : head.seq(),
                    head == null ? null : head.hash(), receipt);
            if (broken != null) {
                return switch (broken) {
                    case STARTS_LATE -> session + " starts at seq " + receipt.seq() + ": seq 1 to " + (receipt.seq() - 1)
                            + " are missing (dropped, or moved later)";
                    case JUMPS -> session + " jumps from seq " + head.seq() + " (line " + head.line() + ") to seq "
                            + receipt.seq() + ": seq " + (head.seq() + 1) + " is missing here (dropped, or moved later)";
                    case GOES_BACK -> session + " repeats or goes back to seq " + receipt.seq() + " after seq "
                            + head.seq() + " (line " + head.line() + "): lines were moved or duplicated";
                    case PREV_BROKEN -> session + " seq " + receipt.seq() + ": prev " + receipt.prev()
                            + " is not the hash of seq " + head.seq() + " (line " + head.line() + "), " + head.hash()
                            + ": the prev chain is broken";
                };
            }
            if (chains.put(session, new Head(receipt.seq(), receipt.hash(), line)) == null) {
                if (receipt.client() != null) {
                    clients++;
                } else {
                    sessions++;
                }
            }
            return null;
        }

        /** After the last line: were there as many as the checkpoint covers (the root was compared at that size). */
        private Problem finish() {
            long size = checkpoint.size();
            if (lines < size) {
                return new Problem(Bundles.ENTRIES, lines + 1, "missing: the checkpoint covers " + size
                        + " entries but the file ends after " + lines + " lines (its tail is cut off, or lines"
                        + " were dropped)");
            }
            return null;
        }
    }

    /**
     * Whole lines of the file, as read: each ends in '\n', except the file's last when {@code unterminated}. A chunk
     * marked {@code tooLong} stands for a line longer than {@link #MAX_LINE}, after which nothing more is read (it is
     * a problem, so the judging stops there).
     */
    private record Chunk(byte[] data, int length, boolean unterminated, boolean tooLong) {
    }

    /** Reads the file a chunk at a time, cutting after the chunk's last newline and carrying the rest over. */
    private static final class ChunkReader {
        private static final byte[] NOTHING = new byte[0];

        private final InputStream in;
        private byte[] carry = NOTHING;
        private boolean done;

        ChunkReader(InputStream in) {
            this.in = in;
        }

        /** The next chunk, or null at the end. */
        Chunk next() throws IOException {
            while (!done) {
                byte[] buffer = new byte[carry.length + CHUNK];
                System.arraycopy(carry, 0, buffer, 0, carry.length);
                int read = in.readNBytes(buffer, carry.length, CHUNK);
                int length = carry.length + read;
                if (read < CHUNK) { // the end of the file
                    done = true;
                    carry = NOTHING;
                    return length == 0 ? null : new Chunk(buffer, length, buffer[length - 1] != '\n', false);
                }
                int last = length - 1;
                while (last >= 0 && buffer[last] != '\n') {
                    last--;
                }
                if (last < 0) {
                    if (length > MAX_LINE) {
                        done = true;
                        return new Chunk(NOTHING, 0, false, true);
                    }
                    carry = Arrays.copyOf(buffer, length);
                    continue;
                }
                carry = Arrays.copyOfRange(buffer, last + 1, length);
                return new Chunk(buffer, last + 1, false, false);
            }
            return null;
        }
    }
}
