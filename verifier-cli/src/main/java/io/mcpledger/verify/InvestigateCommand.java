package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.ledger.Investigation;
import io.mcpledger.domain.ledger.LedgerFold;
import io.mcpledger.domain.ledger.MemoryLedgerState;
import io.mcpledger.domain.ledger.Verdict;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.FoldException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ledger-verify investigate BUNDLE --request-id ID}: what became of one call, from the verified log alone. */
@Command(name = "investigate", mixinStandardHelpOptions = true,
        description = {"Verifies the bundle's log (as 'log' does), then tells what became of one call: its verdict"
                + " and timeline (every receipt of the request), the capability and policy hash in force at"
                + " admission, any operator resolution, and later calls in the session with the same tool and"
                + " arguments hash.",
            "Exit 0 outcome known (completed_ok, completed_error, refused, not_run), 3 outcome unknown or pending,"
                + " 4 not found, 1 invalid log, 2 usage or I/O error (also: the request id was used in several"
                + " sessions or client streams and no --session or --client names one)."})
final class InvestigateCommand extends RebuildCommand implements Callable<Integer> {
    @Option(names = "--request-id", paramLabel = "ID", required = true, description = "The call's requestId.")
    String requestId;

    @Option(names = "--session", paramLabel = "ID", description = "The session, when the requestId was used in several.")
    String session;

    @Option(names = "--client", paramLabel = "TOKENREF",
            description = "The client stream (its tokenRef) of a call made without a session, when the requestId was"
                    + " used in several sessions or streams.")
    String client;

    @Override
    public Integer call() {
        if (session != null && client != null) {
            throw new UsageException("give --session or --client, not both: a call belongs to one of them");
        }
        MemoryLedgerState state = new MemoryLedgerState();
        Map<String, List<Receipt>> byStream = new HashMap<>();
        Set<String> used = new LinkedHashSet<>();
        LogCheck.Result result = verifyAndFold((index, receipt) -> {
            LedgerFold.apply(state, receipt);
            String stream = stream(receipt.session(), receipt.client());
            if (stream != null) {
                byStream.computeIfAbsent(stream, s -> new ArrayList<>()).add(receipt);
                if (requestId.equals(receipt.request())) {
                    used.add(stream);
                }
            }
        });
        if (!result.valid()) {
            return invalid(result.problem());
        }
        String target = stream(session, client);
        if (target == null) {
            if (used.size() > 1) {
                return ambiguous(used);
            }
            target = used.isEmpty() ? null : used.iterator().next();
        }
        List<Receipt> receipts = target == null ? List.of() : byStream.getOrDefault(target, List.of());
        boolean ofClient = target != null && target.startsWith(CLIENT);
        Investigation investigation;
        try {
            investigation = receipts.isEmpty() ? Investigation.notFound(ofClient ? null : unlabel(target), requestId)
                    : ofClient ? Investigation.ofClient(receipts, requestId) : Investigation.of(receipts, requestId);
        } catch (FoldException e) {
            // The whole log was folded already, so this cannot happen; say so rather than guess.
            throw new IllegalStateException("a session that folded in the log does not fold alone: " + e.getMessage(), e);
        }
        ObjectNode answer = investigation.toJson();
        if (json) {
            Output.json(out(), answer);
        } else {
            print(answer);
        }
        return exitFor(investigation.verdict());
    }

    static int exitFor(Verdict verdict) {
        return switch (verdict) {
            case COMPLETED_OK, COMPLETED_ERROR, REFUSED, NOT_RUN -> Exit.OK;
            case OUTCOME_UNKNOWN, PENDING -> Exit.OUTCOME_UNKNOWN;
            case NOT_FOUND -> Exit.NOT_FOUND;
        };
    }

    /** How a stream is keyed here: the session id as it is, a client's tokenRef after {@link #CLIENT}. */
    private static final String CLIENT = "client ";

    private static String stream(String session, String client) {
        return client != null ? CLIENT + client : session;
    }

    private static String unlabel(String stream) {
        return stream == null || !stream.startsWith(CLIENT) ? stream : stream.substring(CLIENT.length());
    }

    private int ambiguous(Set<String> streams) {
        List<String> sessions = streams.stream().filter(s -> !s.startsWith(CLIENT)).toList();
        List<String> clients = streams.stream().filter(s -> s.startsWith(CLIENT)).map(InvestigateCommand::unlabel)
                .toList();
        String message = clients.isEmpty()
                ? "the request id " + requestId + " was used in " + sessions.size() + " sessions; name one with"
                        + " --session ID"
                : "the request id " + requestId + " was used in " + sessions.size() + " sessions and "
                        + clients.size() + " client streams; name one with --session ID or --client TOKENREF";
        if (json) {
            ObjectNode node = Output.object();
            node.put("error", message);
            node.put("requestId", requestId);
            sessions.forEach(node.putArray("sessions")::add);
            if (!clients.isEmpty()) {
                clients.forEach(node.putArray("clients")::add);
            }
            Output.json(out(), node);
        } else {
            PrintWriter err = err();
            err.println("ledger-verify investigate: " + message + ":");
            sessions.forEach(s -> err.println("  " + (clients.isEmpty() ? "" : "session ") + s));
            clients.forEach(c -> err.println("  client " + c));
            err.flush();
        }
        return Exit.USAGE;
    }

    private void print(ObjectNode answer) {
        PrintWriter out = out();
        String verdict = answer.path("verdict").asText();
        String where = answer.has("session") ? " in session " + answer.path("session").asText()
                : answer.has("client") ? " of client " + answer.path("client").asText() : "";
        out.printf("Request %s%s: %s%n", requestId, where, verdict.toUpperCase().replace('_', ' '));
        out.println("  " + explain(verdict, answer));
        if (verdict.equals(Verdict.NOT_FOUND.wire())) {
            out.flush();
            return;
        }
        out.println();
        out.println("Timeline (every receipt of this request):");
        for (JsonNode r : answer.path("timeline")) {
            out.printf("  %s  seq %-4d %-14s %s%n", r.path("at").asText(), r.path("seq").asLong(),
                    r.path("kind").asText(), describe(r));
        }
        out.println();
        JsonNode capability = answer.get("capability");
        JsonNode used = answer.get("grant");
        if (used != null) {
            StringBuilder ops = new StringBuilder();
            used.path("operations").forEach(op -> ops.append(ops.length() == 0 ? "" : ",").append(op.asText()));
            out.printf("Grant in force at admission: %s/%s %s until %s%n", used.path("server").asText(),
                    used.path("tool").asText(), ops, used.path("notAfter").asText());
        } else if (answer.has("client")) {
            out.println("Grant in force at admission: none recorded");
        } else if (capability == null) {
            out.println("Capability in force at admission: none recorded");
        } else {
            out.println("Capability in force at admission: " + capability.path("id").asText());
            for (JsonNode grant : capability.path("grants")) {
                StringBuilder ops = new StringBuilder();
                grant.path("operations").forEach(op -> ops.append(ops.length() == 0 ? "" : ",").append(op.asText()));
                out.printf("  %s/%s %s until %s%n", grant.path("server").asText(), grant.path("tool").asText(), ops,
                        grant.path("notAfter").asText());
            }
        }
        out.println("Policy in force at admission: " + answer.path("policy").asText("none"));
        JsonNode resolution = answer.get("resolution");
        out.println("Operator resolution: " + (resolution == null ? "none"
                : resolution.path("status").asText() + " (receipt " + resolution.path("receipt").asText() + ")"
                        + (resolution.has("note") ? ", note: " + resolution.path("note").asText() : "")));
        JsonNode later = answer.path("laterCalls");
        String stream = answer.has("client") ? "the client's stream" : "the session";
        out.println();
        if (later.isEmpty()) {
            out.println("Later calls in " + stream + " with the same tool and arguments: none");
        } else {
            out.println("Later calls in " + stream + " with the same tool and arguments:");
            for (JsonNode c : later) {
                out.printf("  %s  request %s  %s, %s (receipt %s)%n", c.path("at").asText(),
                        c.path("requestId").asText(), c.path("decision").asText(), c.path("verdict").asText(),
                        c.path("receipt").asText());
            }
        }
        out.flush();
    }

    private static String explain(String verdict, ObjectNode answer) {
        return switch (verdict) {
            case "completed_ok" -> "The call ran and its outcome is ok.";
            case "completed_error" -> "The call ran and its outcome is an error.";
            case "refused" -> "The ledger refused the call: it was never forwarded to the tool.";
            case "not_run" -> "An operator resolved the call as not run.";
            case "outcome_unknown" -> "The call was admitted and no final outcome was ever recorded: THE CALL MAY HAVE"
                    + " RUN. Inspect the tool's own state for its effect before any retry, then record what you found"
                    + " as the call's resolution (ok, error or not_run).";
            case "pending" -> answer.has("client")
                    ? "The call was admitted and no outcome is recorded yet: it may still arrive, and the edge's next"
                    + " start (a new incarnation) records it as unknown. If that edge is gone, treat it as"
                    + " outcome_unknown."
                    : "The call was admitted and the edge that admitted it is still the session's current"
                    + " one: its outcome may still arrive. If that edge is gone, treat it as outcome_unknown.";
            case "not_found" -> answer.has("session")
                    ? "No receipt of this request in session " + answer.path("session").asText() + "."
                    : answer.has("client")
                    ? "No receipt of this request in the stream of client " + answer.path("client").asText() + "."
                    : "No receipt in this log names this request id.";
            default -> "";
        };
    }

    private static String describe(JsonNode r) {
        JsonNode body = r.path("body");
        StringBuilder text = new StringBuilder();
        if (body.has("tool")) {
            text.append(body.path("server").asText()).append('/').append(body.path("tool").asText());
            if (body.has("operation")) {
                text.append(' ').append(body.path("operation").asText());
            }
        }
        if (body.has("argumentsSha256")) {
            text.append(", arguments sha256 ").append(abbreviate(body.path("argumentsSha256").asText()));
        }
        if (body.has("status")) {
            text.append(text.length() == 0 ? "" : ", ").append("status ").append(body.path("status").asText());
        }
        JsonNode reason = body.get("reason");
        if (reason != null) {
            text.append(text.length() == 0 ? "" : ", ").append(reason.path("code").asText()).append(": ")
                    .append(reason.path("message").asText());
        }
        if (body.has("detail")) {
            text.append(", detail: ").append(body.path("detail").asText());
        }
        if (body.has("note")) {
            text.append(", note: ").append(body.path("note").asText());
        }
        return text.append(" (receipt ").append(r.path("id").asText()).append(')').toString();
    }

    private static String abbreviate(String hex) {
        return hex.length() > 12 ? hex.substring(0, 12) + "..." : hex;
    }
}
