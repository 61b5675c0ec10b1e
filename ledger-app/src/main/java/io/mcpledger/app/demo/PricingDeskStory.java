package io.mcpledger.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.log.Bundle;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.app.statedir.StateDirectory;
import io.mcpledger.app.statedir.StateException;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.session.Edge;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The pricing-desk story of the contract's section 12 (docs/contract.md), lived against the real ledger by an edge, an operator and an auditor over
 * HTTP, and finished offline with {@code ledger-app export} and {@code ledger-verify}. Every step checks what the
 * contract says must happen and stops the story with a {@link DemoFailure} when it does not.
 */
public final class PricingDeskStory extends DemoStory {
    static final String FULL_POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 300}
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;
    static final String NARROWED_POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;
    private static final String SERVER = "pricing";
    private static final String PRINCIPAL = "alice";
    private static final String EDGE_ID = "edge-1";
    private static final String PROTOCOL = "2025-06-18";
    private static final String QUOTE_ARGUMENTS = "{\"sku\":\"WIDGET-7\",\"quantity\":40}";
    private static final String DISCOUNT_ARGUMENTS = "{\"sku\":\"WIDGET-7\",\"percent\":5}";
    /** The request whose edge dies before its outcome: the one investigated live and offline. */
    private static final String UNKNOWN_REQUEST = "d-4";
    /** The entry changed in the tampered copy, and the byte changed in it. */
    private static final String TAMPERED_REQUEST = "q-1";
    private static final String TAMPER_FROM = "\"tool\":\"quote\"";
    private static final String TAMPER_TO = "\"tool\":\"quota\"";

    /** What the edge sends instead of alice's bearer token: its SHA-256. The ledger never sees the token. */
    private final String clientToken = Sha256.hexOfUtf8("alice's MCP bearer token, which only the edge holds");
    private String incarnation;

    /** The story, printed to {@code out}, with its state and bundles under {@code work} (an empty directory). */
    public PricingDeskStory(PrintWriter out, Path work, Duration checkpointInterval, boolean verbose) {
        super(out, work, checkpointInterval, verbose);
    }

    @Override
    protected String story() throws IOException, InterruptedException, StateException {
        say.paragraph("The pricing-desk story of the ledger contract's section 12 (docs/contract.md), against a fresh"
                + " ledger state.");
        say.paragraph("An edge asks the ledger before it forwards any MCP tools/call; an operator sets policy and"
                + " revokes; an auditor reads; a compliance team verifies the exported log offline.");
        if (!say.verbose()) {
            say.paragraph("Session and capability ids are shortened to their first and last four hex digits"
                    + " (mcp-a924...cf68), and " + Narrator.WORK + " is the working directory; --verbose prints"
                    + " them whole.");
        }

        step("The ledger starts on a fresh state: a new signing key and credentials, nothing to replay.");
        ledger = DemoLedger.create(work.resolve("state"), checkpointInterval);
        ledger.start();
        say.say("ledger", "state " + ledger.stateDirectory() + ", origin " + ledger.origin());
        say.say("ledger", "listening on " + ledger.address() + ", checkpoint interval "
                + ledger.checkpointInterval().toMillis() + "ms; credentials in "
                + ledger.stateDirectory().resolve(StateDirectory.CREDENTIALS) + "/");
        long receipts = health();
        expect(receipts == 0, "an empty ledger (0 receipts)", () -> receipts + " receipts");

        step("The operator activates the pricing-desk policy: every principal may quote and discount.");
        String fullPolicy = activatePolicy(FULL_POLICY);

        step("An edge (" + EDGE_ID + ", incarnation boot-1) initializes an MCP session for alice.");
        incarnation = "boot-1";
        JsonNode first = initialize();
        String session = first.path("id").asText();
        expectGrants(first, List.of("quote", "discount"));
        String capability = first.path("capability").path("id").asText();

        step("alice asks for a quote: the edge asks the ledger before forwarding it, and reports how it ended.");
        admitted(session, "q-1", "quote", capability);
        completed(session, "q-1");

        step("The ledger is restarted: a new ledger on the same state replays the stored receipts.");
        restartLedger();

        step("The edge is restarted too (incarnation boot-2) and resumes the same session id.");
        incarnation = "boot-2";
        JsonNode resumed = resume(session);
        String renewed = resumed.path("capability").path("id").asText();
        expect(!renewed.equals(capability), "a fresh capability from the current policy, not " + capability,
                () -> renewed);
        expect(resumed.path("calls").path("unknown").asLong() == 0, "no unknown call (q-1 has its outcome)",
                () -> resumed.path("calls").toString());
        expectGrants(resumed, List.of("quote", "discount"));
        capability = renewed;

        step("The next quote in the resumed session is admitted, and completes.");
        admitted(session, "q-2", "quote", capability);
        completed(session, "q-2");

        step("The operator narrows the policy to discount only.");
        String narrowed = activatePolicy(NARROWED_POLICY);
        expect(!narrowed.equals(fullPolicy), "a new policy hash", () -> "the old one, " + fullPolicy);

        step("A quote is refused, with a receipt; the edge must not forward it.");
        refused(session, "q-3", "quote", "not_in_scope",
                "requested tool quote on server pricing is not in capability scope");

        step("A discount is still admitted, and completes.");
        admitted(session, "d-1", "discount", capability);
        completed(session, "d-1");

        step("The operator revokes the session's capability.");
        revoke(session, capability);

        step("A discount is now refused: the session has no authority left.");
        refused(session, "d-2", "discount", "capability_revoked", "capability has been revoked: " + capability);

        step("The ledger is restarted again: the revocation is part of the log it replays.");
        restartLedger();

        step("After the restart the edge resumes the session and asks for a discount: still refused.");
        JsonNode afterRevocation = resume(session);
        expect(afterRevocation.path("capability").path("revoked").asBoolean(false),
                "the session to resume without authority (capability revoked)",
                () -> afterRevocation.path("capability").toString());
        say.more("the session is available, but its capability stays revoked: no fresh one is issued");
        refused(session, "d-3", "discount", "capability_revoked", "capability has been revoked: " + capability);

        step("alice starts a new session; its capability comes from the current policy: discount only.");
        JsonNode second = initialize();
        String session2 = second.path("id").asText();
        expectGrants(second, List.of("discount"));
        String capability2 = second.path("capability").path("id").asText();

        step("A discount is admitted and forwarded, and the edge dies before the pricing server answers.");
        admitted(session2, UNKNOWN_REQUEST, "discount", capability2);
        say.say("edge", "forwards " + UNKNOWN_REQUEST + " to the pricing server, then crashes: incarnation "
                + incarnation + " is gone and never reports an outcome");

        step("The edge restarts (incarnation boot-3) and resumes that session: the ledger marks "
                + UNKNOWN_REQUEST + " unknown.");
        incarnation = "boot-3";
        JsonNode recovered = resume(session2);
        JsonNode calls = recovered.path("calls");
        expect(calls.path("unknown").asLong() == 1 && calls.path("pending").asLong() == 0,
                "1 unknown call and 0 pending", () -> calls.toString());
        expect(recovered.path("seq").asLong() == 4, "the session at seq 4 (session.resumed and call.outcome unknown"
                + " appended)", () -> "seq " + recovered.path("seq").asLong());
        say.more("the session is at seq 4: with the resume the ledger appended a call.outcome receipt, status unknown,"
                + " for " + UNKNOWN_REQUEST);

        step("An auditor investigates " + UNKNOWN_REQUEST + ".");
        investigateLive(session2);

        step("alice is done: the edge deletes the session.");
        delete(session2);

        step("The deleted session cannot be resumed: its id is a tombstone, and nothing is appended.");
        long before = health();
        resumeRefused(session2);
        long after = health();
        expect(after == before, before + " receipts (nothing appended)", () -> after + " receipts");

        step("Just before the ledger stops, an auditor reads the projection digest and the latest checkpoint.");
        JsonNode live = digest();
        long treeSize = live.path("treeSize").asLong();
        awaitCheckpoint(treeSize);

        step("The ledger stops, and the operator exports the bundle with 'ledger-app export'.");
        ledger.stop();
        say.say("ledger", "stopped; every answered receipt is stored");
        Path bundle = work.resolve("bundle");
        ToolRun export = ToolRun.ledgerAppExport("--state", ledger.stateDirectory().toString(), "--out",
                bundle.toString());
        show("operator", export);
        expect(export.exit() == 0 && export.out().startsWith("Exported " + treeSize + " entries"),
                "exit 0 and 'Exported " + treeSize + " entries'", () -> "exit " + export.exit() + ": "
                        + (export.out() + export.err()).strip());

        step("A compliance team verifies the bundle offline with the ledger's public key, obtained apart from the"
                + " bundle (here from the state directory): ledger-verify log.");
        Path key = ledger.stateDirectory().resolve(StateDirectory.PUBLIC_KEY);
        ToolRun log = ToolRun.ledgerVerify("log", bundle.toString(), "--key", key.toString());
        show("auditor", log);
        expect(log.exit() == 0, "exit 0 (the log is valid)", () -> "exit " + log.exit());

        step("ledger-verify replay rebuilds every projection from the bundle alone: the same digest as the live one.");
        replay(bundle, key, live);

        step("ledger-verify investigate " + UNKNOWN_REQUEST + " on the bundle reaches the same verdict offline.");
        investigateOffline(bundle, key);

        step("One byte of a copy of the bundle is changed: ledger-verify log rejects the copy and names the line.");
        tamperedCopyIsRejected(bundle);

        return "DEMO PASSED: all " + step + " steps of the pricing-desk story behaved as the contract's section 12 says; "
                + treeSize + " receipts, the bundle verifies and replays to the live digest, and the copy with one"
                + " byte changed is rejected.";
    }

    // ---- what the operator does

    /** PUT /v1/policy; answers the new policy's hash. */
    private String activatePolicy(String yaml) throws IOException, InterruptedException {
        Reply reply = send("operator", Role.OPERATOR, "PUT", "/v1/policy", false, "application/yaml", yaml, "(YAML)");
        say.quote(yaml);
        expectStatus(reply, 200, "policy.activated");
        JsonNode receipt = expectReceipt(reply, "policy.activated");
        String hash = reply.json().path("policy").asText();
        answer(reply.status() + " " + receiptLine(receipt));
        say.more("policy " + hash);
        return hash;
    }

    private void revoke(String session, String capability) throws IOException, InterruptedException {
        Reply reply = send("operator", Role.OPERATOR, "POST", "/v1/capabilities/" + capability + "/revoke", false,
                null, null, null);
        expectStatus(reply, 200, "capability.revoked");
        JsonNode receipt = expectReceipt(reply, "capability.revoked");
        expectSession(receipt, session);
        JsonNode answer = reply.json();
        expect(answer.path("revoked").asBoolean(false) && capability.equals(answer.path("capabilityId").asText()),
                "{\"capabilityId\": \"" + capability + "\", \"revoked\": true}", reply::summary);
        answer(reply.status() + " " + receiptLine(receipt));
        say.more("capability " + capability + " revoked; it stays revoked across every resume and restart");
    }

    // ---- what the edge does

    /** POST /v1/sessions for alice; answers the session object. */
    private JsonNode initialize() throws IOException, InterruptedException {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", PRINCIPAL);
        body.put("serverId", SERVER);
        body.put("protocolVersion", PROTOCOL);
        ObjectNode info = body.putObject("clientInfo");
        info.put("name", "pricing-desk");
        info.put("version", "1.0");
        body.set("edge", new Edge(EDGE_ID, incarnation).toJson());
        Reply reply = send("edge", Role.EDGE, "POST", "/v1/sessions", true, "application/json", json(body),
                "principal alice, server pricing, client token sha256 " + abbreviate(clientToken));
        expectStatus(reply, 201, "session.initialized");
        JsonNode receipt = expectReceipt(reply, "session.initialized");
        JsonNode session = reply.json().path("session");
        expectSeq(receipt, 1);
        answer(reply.status() + " " + receiptLine(receipt));
        say.more("session " + session.path("id").asText());
        describeCapability(session);
        return session;
    }

    /** POST /v1/sessions/{id}/resume as the current incarnation; answers the session object. */
    private JsonNode resume(String session) throws IOException, InterruptedException {
        Reply reply = send("edge", Role.EDGE, "POST", "/v1/sessions/" + session + "/resume", true, "application/json",
                json(resumeBody()), "edge " + EDGE_ID + ", incarnation " + incarnation);
        expectStatus(reply, 200, "session.resumed");
        JsonNode receipt = expectReceipt(reply, "session.resumed");
        expectSession(receipt, session);
        JsonNode resumed = reply.json().path("session");
        answer(reply.status() + " " + receiptLine(receipt) + "; resumes " + resumed.path("resumes").asLong());
        describeCapability(resumed);
        JsonNode calls = resumed.path("calls");
        say.more(String.format("calls: %d admitted, %d refused, %d completed, %d unknown, %d pending",
                calls.path("admitted").asLong(), calls.path("refused").asLong(), calls.path("completed").asLong(),
                calls.path("unknown").asLong(), calls.path("pending").asLong()));
        return resumed;
    }

    /** A resume of a deleted session: 404 session_deleted, no receipt. */
    private void resumeRefused(String session) throws IOException, InterruptedException {
        Reply reply = send("edge", Role.EDGE, "POST", "/v1/sessions/" + session + "/resume", true, "application/json",
                json(resumeBody()), "edge " + EDGE_ID + ", incarnation " + incarnation);
        expect(reply.status() == 404 && "session_deleted".equals(reply.errorCode()) && !reply.hasReceipt(),
                "404 session_deleted without a receipt", reply::summary);
        answer(reply.status() + " " + reply.errorCode() + ": " + reply.errorMessage());
    }

    private void delete(String session) throws IOException, InterruptedException {
        Reply reply = send("edge", Role.EDGE, "DELETE", "/v1/sessions/" + session, true, null, null, null);
        expectStatus(reply, 200, "session.deleted");
        JsonNode receipt = expectReceipt(reply, "session.deleted");
        expectSession(receipt, session);
        answer(reply.status() + " " + receiptLine(receipt));
    }

    private void admitted(String session, String requestId, String tool, String capability)
            throws IOException, InterruptedException {
        Reply reply = call(session, requestId, tool);
        JsonNode receipt = expectReceipt(reply, "call.admitted");
        expect("admitted".equals(reply.json().path("decision").asText()), "decision admitted", reply::summary);
        expect(capability.equals(reply.json().path("capabilityId").asText()), "admitted under " + capability,
                () -> reply.json().path("capabilityId").asText());
        expectSession(receipt, session);
        answer(reply.status() + " admitted under capability " + capability);
        say.more("receipt " + receiptLine(receipt));
    }

    private void refused(String session, String requestId, String tool, String code, String message)
            throws IOException, InterruptedException {
        Reply reply = call(session, requestId, tool);
        JsonNode receipt = expectReceipt(reply, "call.refused");
        JsonNode reason = reply.json().path("reason");
        expect("refused".equals(reply.json().path("decision").asText()) && code.equals(reason.path("code").asText())
                        && message.equals(reason.path("message").asText()),
                "refused, " + code + ": " + message, reply::summary);
        expectSession(receipt, session);
        answer(reply.status() + " refused, " + code + ": " + message);
        say.more("receipt " + receiptLine(receipt));
        say.say("edge", "does not forward " + requestId + "; alice hears that " + tool + " is not allowed");
    }

    /** POST /v1/sessions/{id}/calls; answers 200 with a decision and its receipt. */
    private Reply call(String session, String requestId, String tool) throws IOException, InterruptedException {
        String arguments = tool.equals("quote") ? QUOTE_ARGUMENTS : DISCOUNT_ARGUMENTS;
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("requestId", requestId);
        body.put("server", SERVER);
        body.put("tool", tool);
        body.put("operation", "invoke");
        body.put("argumentsSha256", Sha256.hexOfUtf8(arguments));
        Reply reply = send("edge", Role.EDGE, "POST", "/v1/sessions/" + session + "/calls", true, "application/json",
                json(body), "requestId " + requestId + ", tools/call " + SERVER + "/" + tool + " " + arguments);
        expectStatus(reply, 200, "a decision");
        return reply;
    }

    private void completed(String session, String requestId) throws IOException, InterruptedException {
        say.say("edge", "forwards " + requestId + " to the pricing server; the answer comes back");
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("status", "ok");
        body.put("resultSha256", Sha256.hexOfUtf8("result of " + requestId));
        Reply reply = send("edge", Role.EDGE, "POST", "/v1/sessions/" + session + "/calls/" + requestId + "/outcome",
                true, "application/json", json(body), "status ok");
        expectStatus(reply, 200, "call.outcome");
        JsonNode receipt = expectReceipt(reply, "call.outcome");
        expectSession(receipt, session);
        expect("ok".equals(receipt.path("body").path("status").asText()), "outcome status ok",
                () -> receipt.path("body").toString());
        answer(reply.status() + " " + receiptLine(receipt) + ", status ok");
    }

    private ObjectNode resumeBody() {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("protocolVersion", PROTOCOL);
        body.set("edge", new Edge(EDGE_ID, incarnation).toJson());
        return body;
    }

    // ---- what the auditor reads, and the ledger's restarts

    /** Stops the ledger and starts a new one on the same state; the projections it rebuilds must be the same. */
    private void restartLedger() throws IOException, InterruptedException {
        JsonNode before = digest();
        ledger.stop();
        say.say("ledger", "stopped");
        ledger.start();
        say.say("ledger", "started again on the same state, listening on " + ledger.address());
        long replayed = health();
        expect(replayed == before.path("treeSize").asLong(), before.path("treeSize").asLong() + " receipts replayed",
                () -> Long.toString(replayed));
        JsonNode after = digest();
        expect(after.equals(before), "the same digest after the replay: " + before, after::toString);
        say.more("the replay rebuilt the same sessions, capabilities, revocations and policy");
    }

    private void investigateLive(String session) throws IOException, InterruptedException {
        Reply reply = send("auditor", Role.AUDITOR, "GET", "/v1/investigate/" + UNKNOWN_REQUEST, false, null, null,
                null);
        expectStatus(reply, 200, "an investigation");
        JsonNode answer = reply.json();
        expect("outcome_unknown".equals(answer.path("verdict").asText())
                        && session.equals(answer.path("session").asText()),
                "verdict outcome_unknown in session " + session, () -> answer.path("verdict").asText() + " in session "
                        + answer.path("session").asText());
        JsonNode timeline = answer.path("timeline");
        JsonNode last = timeline.path(timeline.size() - 1);
        expect(timeline.size() == 2 && "call.admitted".equals(timeline.path(0).path("kind").asText())
                        && "call.outcome".equals(last.path("kind").asText())
                        && "unknown".equals(last.path("body").path("status").asText()),
                "a timeline of call.admitted then call.outcome status unknown", timeline::toString);
        answer(reply.status() + " verdict " + answer.path("verdict").asText() + " (session " + session + ")");
        say.more("timeline:");
        for (JsonNode receipt : timeline) {
            JsonNode body = receipt.path("body");
            String detail = body.has("status") ? ", status " + body.path("status").asText()
                    + (body.has("detail") ? ": " + body.path("detail").asText() : "") : "";
            say.more("  " + receipt.path("at").asText() + "  " + receiptLine(receipt) + detail);
        }
        say.more("capability at admission " + answer.path("capability").path("id").asText() + ", policy "
                + answer.path("policy").asText());
        say.say("auditor", "outcome_unknown: the call may have run. Inspect the pricing server's own state for its"
                + " effect before any retry;");
        say.more("an operator then records what was found as the call's resolution (ok, error or not_run).");
    }

    // ---- offline, on the exported bundle

    private void investigateOffline(Path bundle, Path key) throws IOException {
        String[] args = {"investigate", bundle.toString(), "--request-id", UNKNOWN_REQUEST, "--key", key.toString()};
        ToolRun text = ToolRun.ledgerVerify(args);
        show("auditor", text);
        expect(text.exit() == 3, "exit 3 (outcome unknown)", () -> "exit " + text.exit());
        String[] withJson = Stream.concat(Stream.of(args), Stream.of("--json")).toArray(String[]::new);
        ToolRun json = ToolRun.ledgerVerify(withJson);
        String verdict = json.exit() == 3 ? Canonical.parse(json.out()).path("verdict").asText()
                : "exit " + json.exit();
        expect(verdict.equals("outcome_unknown"), "verdict outcome_unknown with --json", () -> verdict);
    }

    private void tamperedCopyIsRejected(Path bundle) throws IOException {
        Path copy = work.resolve("bundle-tampered");
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(bundle)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        Path entries = copy.resolve(Bundle.ENTRIES);
        List<String> lines = new ArrayList<>(Files.readAllLines(entries, StandardCharsets.UTF_8));
        int index = lineOf(lines, "call.admitted", TAMPERED_REQUEST);
        expect(index >= 0, "a call.admitted line for " + TAMPERED_REQUEST, () -> "none in " + entries);
        String original = lines.get(index);
        String changed = original.replace(TAMPER_FROM, TAMPER_TO);
        expect(differsInOneByte(original, changed), "one byte changed in the call.admitted line of "
                + TAMPERED_REQUEST, () -> "no " + TAMPER_FROM + " in that line");
        lines.set(index, changed);
        Files.writeString(entries, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        int line = index + 1;
        say.say("auditor", "copies the bundle to " + copy + " and changes " + TAMPER_FROM + " to " + TAMPER_TO);
        say.more("in " + Bundle.ENTRIES + " line " + line + " (the call.admitted receipt of " + TAMPERED_REQUEST + ")");
        ToolRun log = ToolRun.ledgerVerify("log", copy.toString(), "--key",
                ledger.stateDirectory().resolve(StateDirectory.PUBLIC_KEY).toString());
        show("auditor", log);
        expect(log.exit() == 1 && log.out().contains(Bundle.ENTRIES + " line " + line + " "),
                "exit 1 naming " + Bundle.ENTRIES + " line " + line, () -> "exit " + log.exit() + ": "
                        + (log.out() + log.err()).strip());
    }

    /** The 0-based index of the receipt line of {@code kind} for {@code request}; -1 when there is none. */
    private static int lineOf(List<String> lines, String kind, String request) throws IOException {
        for (int i = 0; i < lines.size(); i++) {
            JsonNode receipt = Canonical.parse(lines.get(i));
            if (kind.equals(receipt.path("kind").asText()) && request.equals(receipt.path("request").asText())) {
                return i;
            }
        }
        return -1;
    }

    private static boolean differsInOneByte(String a, String b) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        if (x.length != y.length) {
            return false;
        }
        int differences = 0;
        for (int i = 0; i < x.length; i++) {
            if (x[i] != y[i]) {
                differences++;
            }
        }
        return differences == 1;
    }

    // ---- printing and checking

    /** {@link DemoStory#send}, as alice's edge when {@code asClient}. */
    private Reply send(String actor, Role role, String method, String path, boolean asClient, String contentType,
                       String body, String excerpt) throws IOException, InterruptedException {
        return send(actor, role, method, path, asClient ? clientToken : null, contentType, body, excerpt);
    }

    private void describeCapability(JsonNode session) {
        JsonNode capability = session.path("capability");
        List<String> grants = new ArrayList<>();
        for (JsonNode grant : capability.path("grants")) {
            grants.add(grant.path("server").asText() + "/" + grant.path("tool").asText() + " until "
                    + grant.path("notAfter").asText());
        }
        say.more("capability " + capability.path("id").asText()
                + (capability.path("revoked").asBoolean(false) ? " REVOKED" : "")
                + (grants.isEmpty() ? ", no grants" : ": " + String.join(", ", grants)));
    }

    private void expectSession(JsonNode receipt, String session) {
        expect(session.equals(receipt.path("session").asText()), "a receipt of session " + session,
                () -> "one of session " + receipt.path("session").asText());
    }

    private void expectSeq(JsonNode receipt, long seq) {
        expect(receipt.path("seq").asLong() == seq, "session seq " + seq, () -> "seq " + receipt.path("seq").asLong());
    }

    private void expectGrants(JsonNode session, List<String> tools) {
        List<String> granted = new ArrayList<>();
        for (JsonNode grant : session.path("capability").path("grants")) {
            granted.add(grant.path("tool").asText());
        }
        expect(Objects.equals(granted, tools), "grants for " + tools, granted::toString);
    }

    private static String abbreviate(String hex) {
        return hex.substring(0, 12) + "...";
    }
}
