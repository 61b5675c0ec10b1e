package io.mcpledger.app.testing;

import io.mcpledger.app.storage.H2Database;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.app.storage.ReceiptJournal;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.TokenRefs;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a large log straight into a state's database, for tests that need millions of receipts in seconds: sessions
 * of the shape edges make (initialized, then calls admitted and completed, then deleted), interleaved a hundred at a
 * time as concurrent sessions interleave, each receipt chained to the one before in its session. The lines are exact
 * JCS in the receipts' format, built from templates; their signature is not made (64 zero bytes), because nothing that
 * folds the log checks signatures (the ledger trusts its own store; verifying is {@code ledger-verify}'s job), and
 * signing a million receipts would take most of a minute.
 */
public final class LargeLog {
    private static final String SIG = Base64.getEncoder().encodeToString(new byte[64]);
    private static final String ARGS = "ab".repeat(32);
    private static final String POLICY = "cd".repeat(32);
    private int interleaved = 100;
    private boolean globalRequestIds;

    private final String origin;
    private final String keyId;
    private final Instant t0;
    private final Map<String, Long> heads = new HashMap<>();
    private final Map<String, String> hashes = new HashMap<>();
    private long receipts;

    public LargeLog(String origin, String keyId, Instant t0) {
        this.origin = origin;
        this.keyId = keyId;
        this.t0 = t0;
    }

    /**
     * Interleaves {@code sessions} sessions at a time instead of a hundred, and names calls as the repository's load
     * generator does ({@code load-1-<k>}, k counting every receipt in the log's order) instead of {@code req-<k>}
     * within each session: the shape of the soak's log (docs/benchmarks.md section 6).
     */
    public LargeLog soakShape(int sessions) {
        this.interleaved = sessions;
        this.globalRequestIds = true;
        return this;
    }

    /**
     * Appends {@code sessions} sessions of {@code perSession} receipts each (at least 3: initialized, calls, and
     * deleted when {@code end}), numbered from {@code first}, and returns how many receipts the log then holds.
     */
    public long append(H2Database database, int first, int sessions, int perSession, boolean end) throws SQLException {
        return append(database, first, sessions, perSession, end, false);
    }

    /**
     * As {@link #append(H2Database, int, int, int, boolean)}, and when {@code journaled} each commit is made durable as
     * the command side makes it, through the journal ({@code ForcedWrites.append}), instead of one forced write of
     * the store at the end.
     */
    public long append(H2Database database, int first, int sessions, int perSession, boolean end, boolean journaled)
            throws SQLException {
        try (Connection c = database.dataSource().getConnection()) {
            for (int block = first; block < first + sessions; block += interleaved) {
                int count = Math.min(interleaved, first + sessions - block);
                List<List<String>> lines = new ArrayList<>(count);
                List<String> ids = new ArrayList<>(count);
                for (int s = block; s < block + count; s++) {
                    ids.add(sessionId(s));
                    lines.add(session(s, perSession, end, count, s - block));
                }
                List<LedgerLog.Row> rows = new ArrayList<>(count * perSession);
                for (int k = 0; k < perSession; k++) {
                    for (int s = 0; s < count; s++) {
                        rows.add(new LedgerLog.Row(ids.get(s), parse(lines.get(s).get(k)), null));
                    }
                }
                long at = LedgerLog.reserve(c, rows.size());
                ReceiptJournal.Batch batch = LedgerLog.insert(c, at, rows, stream -> heads.getOrDefault(stream, -1L));
                for (LedgerLog.Row row : rows) {
                    heads.put(row.stream(), at++);
                }
                c.commit();
                if (journaled) {
                    database.forcedWrites().append(List.of(batch));
                }
                receipts += rows.size();
            }
        }
        if (!journaled) {
            database.forcedWrites().force();
        }
        return receipts;
    }

    /** The id of session number {@code n}. */
    public static String sessionId(int n) {
        byte[] random = Arrays.copyOf(Sha256.digest(("large-log-session-" + n).getBytes()), 16);
        return SessionIds.issue(token(n), random);
    }

    /** The client token's SHA-256 of session number {@code n}. */
    public static String token(int n) {
        return Sha256.hexOfUtf8("large-log-token-" + n);
    }

    /** Session {@code n}, the {@code index}th of {@code count} interleaved: receipt k of each comes before k + 1. */
    private List<String> session(int n, int perSession, boolean end, int count, int index) {
        String id = sessionId(n);
        List<String> lines = new ArrayList<>(perSession);
        Instant at = t0.plusSeconds(n);
        String prev = hashes.get(id);
        long seq = 0;
        for (int k = 0; k < perSession; k++) {
            seq++;
            Instant when = at.plusMillis(k);
            String line;
            if (seq == 1) {
                line = initialized(id, n, when);
            } else if (end && k == perSession - 1) {
                line = receipt(when, "{}", "session.deleted", null, seq, id, prev, n, k);
            } else if (k % 2 == 1) {
                line = receipt(when, "{\"argumentsSha256\":\"" + ARGS + "\",\"capability\":\"cap-" + n
                        + "\",\"operation\":\"invoke\",\"policy\":\"" + POLICY + "\",\"server\":\"pricing\",\"tool\":\"quote\"}",
                        "call.admitted", request(k, count, index), seq, id, prev, n, k);
            } else {
                line = receipt(when, "{\"status\":\"ok\"}", "call.outcome", request(k - 1, count, index), seq, id,
                        prev, n, k);
            }
            prev = Sha256.hexOfUtf8(line);
            lines.add(line);
        }
        hashes.put(id, prev);
        return lines;
    }

    /**
     * The first {@code receipts} receipts of session number {@code n} (initialized, then calls admitted and completed),
     * chained, not written anywhere: for tests of the log's storage.
     */
    public List<Receipt> sessionReceipts(int n, int receipts) {
        List<Receipt> parsed = new ArrayList<>();
        for (String line : session(n, receipts, false, 1, 0)) {
            parsed.add(parse(line));
        }
        return parsed;
    }

    /** The requestId of the call admitted as receipt k of the {@code index}th of {@code count} sessions. */
    private String request(int k, int count, int index) {
        return globalRequestIds ? "load-1-" + (receipts + (long) k * count + index) : "req-" + k;
    }

    private String initialized(String id, int n, Instant at) {
        String body = "{\"capability\":{\"grants\":[{\"notAfter\":\"" + Timestamps.format(at.plusSeconds(86_400))
                + "\",\"operations\":[\"invoke\"],\"server\":\"pricing\",\"tool\":\"quote\"}],\"id\":\"cap-" + n
                + "\"},\"policy\":\"" + POLICY + "\",\"principal\":\"user-" + n
                + "\",\"protocolVersion\":\"2025-06-18\",\"serverId\":\"pricing\",\"tokenRef\":\""
                + TokenRefs.of(token(n)) + "\"}";
        return receipt(at, body, "session.initialized", null, 1, id, null, n, 0);
    }

    private String receipt(Instant at, String body, String kind, String request, long seq, String session,
                           String prev, int n, int k) {
        StringBuilder line = new StringBuilder(800);
        line.append("{\"at\":\"").append(Timestamps.format(at)).append("\",\"body\":").append(body)
                .append(",\"id\":\"rcpt-").append(n).append('-').append(k).append("\",\"keyId\":\"").append(keyId)
                .append("\",\"kind\":\"").append(kind).append("\",\"ledger\":\"").append(origin).append('"');
        if (prev != null) {
            line.append(",\"prev\":\"").append(prev).append('"');
        }
        if (request != null) {
            line.append(",\"request\":\"").append(request).append('"');
        }
        line.append(",\"seq\":").append(seq).append(",\"session\":\"").append(session).append("\",\"sig\":\"")
                .append(SIG).append("\",\"v\":1}");
        return line.toString();
    }

    private static Receipt parse(String line) {
        try {
            return Receipt.parse(line);
        } catch (InvalidReceiptException e) {
            throw new IllegalStateException("a generated line is not a receipt: " + e.getMessage() + ": " + line, e);
        }
    }
}
