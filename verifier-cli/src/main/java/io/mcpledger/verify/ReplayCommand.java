package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.ProjectionDigest;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.ClientState;
import io.mcpledger.domain.session.SessionState;
import io.mcpledger.domain.session.SessionStatus;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ledger-verify replay BUNDLE}: verifies the log, then rebuilds every projection from its entries with the
 * ledger's own fold and prints them with the projection digest the live ledger reports at that tree size.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Verifies the bundle's log (as 'log' does), then rebuilds sessions, capabilities, revocations"
                + " and tombstones from the entries alone, with the ledger's own fold, and prints them with the"
                + " projection digest. The digest equals the live ledger's GET /v1/projections/digest at that tree"
                + " size. Never reads the clock.",
            "Exit 0 replayed, 1 invalid log, 2 usage or I/O error."})
final class ReplayCommand extends RebuildCommand implements Callable<Integer> {
    @Option(names = "--upto", paramLabel = "I", description = "Replay only the first I entries (0 to the log's size).")
    Long upto;

    @Override
    public Integer call() {
        if (upto != null && upto < 0) {
            throw new UsageException("--upto must be 0 or more, not " + upto);
        }
        MemoryLedgerState state = new MemoryLedgerState();
        long limit = upto == null ? Long.MAX_VALUE : upto;
        LogCheck.Result result = verifyAndFold((index, receipt) -> {
            if (index < limit) {
                LedgerFold.apply(state, receipt);
            }
        });
        if (!result.valid()) {
            return invalid(result.problem());
        }
        if (upto != null && upto > result.lines()) {
            throw new UsageException("--upto " + upto + " is beyond the log, which has " + result.lines()
                    + " entries");
        }
        ObjectNode document = ProjectionDigest.document(state);
        String digest = ProjectionDigest.of(document);
        if (json) {
            ObjectNode node = Output.object();
            node.put("treeSize", state.size());
            node.put("digest", digest);
            node.setAll(document);
            Output.json(out(), node);
        } else {
            print(state, digest, result);
        }
        return Exit.OK;
    }

    private void print(MemoryLedgerState state, String digest, LogCheck.Result result) {
        PrintWriter out = out();
        out.printf(Locale.ROOT, "Replayed %,d of %,d entries of the log %s (the log verified%s).%n", state.size(),
                result.lines(), result.checkpoint().origin(),
                byRoot ? " by its signed root; receipts' own signatures not checked" : "");
        out.println("Policy in force: " + (state.policy() == null ? "none ever activated" : state.policy()));
        out.println();
        List<SessionState> sessions = List.copyOf(state.sessions().values());
        out.printf(Locale.ROOT, "Sessions (%d):%n", sessions.size());
        for (SessionState s : sessions) {
            out.printf(Locale.ROOT, "  %s  %s  principal %s, server %s, seq %d, resumes %d, last activity %s%n", s.id(),
                    s.status().wire(), s.principal(), s.serverId(), s.seq(), s.resumes(),
                    Timestamps.format(s.lastActivityAt()));
            out.printf(Locale.ROOT, "      calls: %d admitted, %d refused, %d completed, %d unknown, %d pending%n", s.admitted(),
                    s.refused(), s.completed(), s.unknown(), s.pending());
        }
        out.println();
        out.println("Capabilities:");
        for (SessionState s : sessions) {
            out.printf(Locale.ROOT, "  %s  %s  session %s%n", s.capability().id(), s.capabilityRevoked() ? "REVOKED" : "in force",
                    s.id());
            for (JsonNode grant : s.capability().grantsJson()) {
                out.printf(Locale.ROOT, "      %s/%s %s until %s%n", grant.path("server").asText(), grant.path("tool").asText(),
                        operations(grant),
                        grant.path("notAfter").asText());
            }
        }
        if (!state.clients().isEmpty()) {
            out.println();
            out.printf(Locale.ROOT, "Client streams (%d: calls made without a session, by tokenRef):%n",
                    state.clients().size());
            for (ClientState c : state.clients().values()) {
                out.printf(Locale.ROOT, "  %s  principal %s, seq %d%n", c.tokenRef(), c.principal(), c.seq());
                out.printf(Locale.ROOT, "      calls: %d admitted, %d refused, %d completed, %d unknown, %d pending%n",
                        c.admitted(), c.refused(), c.completed(), c.unknown(), c.pending());
            }
        }
        out.println();
        out.printf(Locale.ROOT, "Revoked principals (%d, by tokenRef):%n", state.revokedPrincipals().size());
        state.revokedPrincipals().forEach(ref -> out.println("  " + ref));
        out.println();
        List<SessionState> tombstones = sessions.stream().filter(s -> s.status() != SessionStatus.ACTIVE).toList();
        out.printf(Locale.ROOT, "Tombstones (%d: deleted or expired sessions, which cannot be resumed):%n", tombstones.size());
        tombstones.forEach(s -> out.printf(Locale.ROOT, "  %s  %s (last receipt seq %d)%n", s.id(), s.status().wire(), s.seq()));
        out.println();
        out.printf(Locale.ROOT, "Projection digest at tree size %d: %s%n", state.size(), digest);
        out.flush();
    }

    private static String operations(JsonNode grant) {
        StringBuilder ops = new StringBuilder();
        for (JsonNode op : grant.path("operations")) {
            ops.append(ops.length() == 0 ? "" : ",").append(op.asText());
        }
        return ops.toString();
    }
}
