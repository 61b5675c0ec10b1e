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
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Verifies a bundle's log (spec section 10, {@code log}): the checkpoint's signature, then every line in order (JCS
 * form, the receipt schema, its log, keyId and signature; a receipt id used once; each session's seq 1, 2, 3... with
 * prev linking), then the lines' count and Merkle root against the checkpoint. The first problem in line order is
 * the answer.
 *
 * <p>Lines are read and judged in order on the calling thread, while a pool of one worker per core does the
 * per-line work that dominates (UTF-8, parsing, the Ed25519 signature, the leaf and receipt hashes) a batch at a
 * time, ahead of the reader. A {@link Sink} sees each valid receipt in log order, on the calling thread.
 */
final class LogCheck {
    /** Lines per task handed to a worker. */
    private static final int BATCH = 256;
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

    /** The outcome: the verified checkpoint (null if it failed), lines read, sessions seen, the first problem. */
    record Result(Checkpoint checkpoint, long lines, long sessions, Problem problem) {
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
     * the caller); everything wrong with the contents is the returned problem.
     */
    static Result run(Path entries, String checkpointText, TrustedKey key, Sink sink, Progress progress, int workers)
            throws IOException {
        String origin = key.name() != null ? key.name() : firstLine(checkpointText);
        Checkpoint checkpoint;
        try {
            VerifierKey verifierKey = key.forOrigin(origin);
            checkpoint = Checkpoint.open(checkpointText, verifierKey);
        } catch (InvalidProofException e) {
            return new Result(null, 0, 0, new Problem(Bundles.CHECKPOINT, 0, "does not verify: " + e.getMessage()));
        }
        Run run = new Run(checkpoint, key.key(), key.keyId(origin), origin, sink, progress);
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
        private final VerifyingKey key;
        private final String keyId;
        private final String origin;
        private final Sink sink;
        private final Progress progress;
        private final Map<String, Long> ids = new HashMap<>();
        private final Map<String, Head> chains = new HashMap<>();
        private final CompactRange tree = CompactRange.empty();
        /** The empty tree's root when the checkpoint is of size 0, compared before any line. */
        private byte[] rootAtCheckpointSize;
        private long lines;

        Run(Checkpoint checkpoint, VerifyingKey key, String keyId, String origin, Sink sink, Progress progress) {
            this.checkpoint = checkpoint;
            this.key = key;
            this.keyId = keyId;
            this.origin = origin;
            this.sink = sink;
            this.progress = progress;
            if (checkpoint.size() == 0) {
                rootAtCheckpointSize = tree.root();
            }
        }

        Result verify(InputStream in, ExecutorService pool, int ahead) throws IOException {
            if (rootAtCheckpointSize != null && !Arrays.equals(rootAtCheckpointSize, checkpoint.root())) {
                return new Result(checkpoint, 0, 0, rootProblem());
            }
            LineReader reader = new LineReader(in);
            ArrayDeque<CompletableFuture<Checked[]>> inFlight = new ArrayDeque<>();
            ArrayDeque<Long> inFlightSizes = new ArrayDeque<>();
            long inFlightBytes = 0;
            boolean more = true;
            boolean unterminatedLast = false;
            while (more || !inFlight.isEmpty()) {
                while (more && inFlight.size() < ahead && (inFlight.isEmpty() || inFlightBytes < AHEAD_BYTES)) {
                    List<byte[]> batch = new ArrayList<>(BATCH);
                    more = reader.next(batch, BATCH);
                    if (batch.isEmpty()) {
                        break;
                    }
                    byte[][] raw = batch.toArray(new byte[0][]);
                    long bytes = batch.stream().mapToLong(b -> b.length).sum();
                    inFlight.add(CompletableFuture.supplyAsync(() -> checkAll(raw), pool));
                    inFlightSizes.add(bytes);
                    inFlightBytes += bytes;
                    unterminatedLast = !more && reader.endedMidLine();
                }
                if (inFlight.isEmpty()) {
                    break;
                }
                Checked[] done = inFlight.poll().join();
                inFlightBytes -= inFlightSizes.poll();
                boolean lastBatch = inFlight.isEmpty() && !more;
                for (int i = 0; i < done.length; i++) {
                    boolean noNewline = lastBatch && unterminatedLast && i == done.length - 1;
                    Problem problem = judge(done[i], noNewline);
                    if (problem != null) {
                        inFlight.forEach(f -> f.cancel(true));
                        return new Result(checkpoint, lines, chains.size(), problem);
                    }
                    progress.update(lines, reader.bytesRead());
                }
            }
            return new Result(checkpoint, lines, chains.size(), finish());
        }

        private Checked[] checkAll(byte[][] raw) {
            Checked[] out = new Checked[raw.length];
            CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            for (int i = 0; i < raw.length; i++) {
                if (Thread.currentThread().isInterrupted()) {
                    return out; // the judge stopped at an earlier problem and will not read these
                }
                out[i] = check(raw[i], utf8);
            }
            return out;
        }

        /** The per-line checks that need no other line: run on a worker. */
        private Checked check(byte[] raw, CharsetDecoder utf8) {
            if (raw == LineReader.TOO_LONG) {
                return new Checked(null, null, "the line is longer than " + LineReader.MAX_LINE + " bytes, which no"
                        + " receipt is");
            }
            if (raw.length == 0) {
                return new Checked(null, null, "the line is empty");
            }
            String text;
            try {
                text = utf8.decode(ByteBuffer.wrap(raw)).toString();
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
            if (!keyId.equals(receipt.keyId())) {
                return new Checked(null, null, "receipt " + receipt.id() + " carries keyId " + receipt.keyId()
                        + ", but the key's is " + keyId + " (signed by another key, or the wrong key was given)");
            }
            byte[] signature = Base64.getDecoder().decode(receipt.sig());
            if (!checkpointKeyVerifies(receipt, signature)) {
                return new Checked(null, null, "the signature of receipt " + receipt.id() + " does not verify: the"
                        + " line was changed after signing");
            }
            receipt.hash();
            return new Checked(receipt, Merkle.leafHash(raw), null);
        }

        private boolean checkpointKeyVerifies(Receipt receipt, byte[] signature) {
            return key.verify(receipt.signingInput(), signature);
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
            if (receipt.session() != null) {
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
                }
            }
            return null;
        }

        private String chain(Receipt receipt, long line) {
            Head head = chains.get(receipt.session());
            long expected = head == null ? 1 : head.seq() + 1;
            String session = "session " + receipt.session();
            if (receipt.seq() != expected) {
                if (head == null) {
                    return session + " starts at seq " + receipt.seq() + ": seq 1 to " + (receipt.seq() - 1)
                            + " are missing (dropped, or moved later)";
                }
                if (receipt.seq() > expected) {
                    return session + " jumps from seq " + head.seq() + " (line " + head.line() + ") to seq "
                            + receipt.seq() + ": seq " + expected + " is missing here (dropped, or moved later)";
                }
                return session + " repeats or goes back to seq " + receipt.seq() + " after seq " + head.seq()
                        + " (line " + head.line() + "): lines were moved or duplicated";
            }
            if (head != null && !head.hash().equals(receipt.prev())) {
                return session + " seq " + receipt.seq() + ": prev " + receipt.prev() + " is not the hash of seq "
                        + head.seq() + " (line " + head.line() + "), " + head.hash() + ": the prev chain is broken";
            }
            chains.put(receipt.session(), new Head(receipt.seq(), receipt.hash(), line));
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

    /** Splits a stream into lines at '\n' (the newline is not part of the line); lines keep their exact bytes. */
    private static final class LineReader {
        /** Longer lines are not read whole: they stand for themselves as this marker. */
        static final int MAX_LINE = 1 << 20;
        static final byte[] TOO_LONG = new byte[0];

        private final InputStream in;
        private final byte[] buffer = new byte[MAX_LINE];
        private int start;
        private int end;
        private boolean eof;
        private boolean skipping;
        private boolean endedMidLine;
        private long bytesRead;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** Adds up to max lines to batch; false once the input is exhausted. */
        boolean next(List<byte[]> batch, int max) throws IOException {
            while (batch.size() < max) {
                int nl = indexOf(start, end);
                if (nl >= 0) {
                    if (skipping) {
                        skipping = false;
                    } else {
                        batch.add(Arrays.copyOfRange(buffer, start, nl));
                    }
                    start = nl + 1;
                    continue;
                }
                if (eof) {
                    if (start < end && !skipping) {
                        batch.add(Arrays.copyOfRange(buffer, start, end));
                        endedMidLine = true;
                    }
                    start = end;
                    return false;
                }
                if (start == 0 && end == buffer.length) {
                    if (!skipping) {
                        batch.add(TOO_LONG);
                        skipping = true;
                    }
                    end = 0;
                }
                fill();
            }
            return true;
        }

        private void fill() throws IOException {
            if (start > 0) {
                System.arraycopy(buffer, start, buffer, 0, end - start);
                end -= start;
                start = 0;
            }
            int n = in.read(buffer, end, buffer.length - end);
            if (n < 0) {
                eof = true;
            } else {
                end += n;
                bytesRead += n;
            }
        }

        private int indexOf(int from, int to) {
            for (int i = from; i < to; i++) {
                if (buffer[i] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        boolean endedMidLine() {
            return endedMidLine;
        }

        long bytesRead() {
            return bytesRead;
        }
    }
}
