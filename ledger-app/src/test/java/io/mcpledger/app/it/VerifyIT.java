package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Ed25519Pem;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two real jars together, as a compliance team uses them: the packaged ledger-app serves calls and exports its
 * log; the packaged ledger-verify, run alone, accepts the bundle, rejects every kind of tampering with exit 1 naming
 * the first bad line, replays to the live projection digest, and investigates each call with the right exit status.
 */
class VerifyIT {
    private static final Path EXAMPLE_POLICY = Path.of(System.getProperty("basedir", "."))
            .resolve("../docs/examples/pricing-policy.yaml");
    private static final String CLIENT = "cd".repeat(32);
    private static final String INITIALIZE = "{\"principal\":\"alice\",\"serverId\":\"pricing\","
            + "\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"edge-a\",\"incarnation\":\"%s\"}}";

    @TempDir
    Path work;

    private LedgerProcess ledger;
    private String edge;
    private String auditor;
    /** What the live ledger said, kept for the checks after it stopped. */
    private final Map<String, String> saved = new HashMap<>();

    private JsonNode post(String path, String body) throws Exception {
        HttpResponse<String> reply = ledger.post(path, edge, CLIENT, body);
        assertThat(reply.statusCode()).as("%s: %s", path, reply.body()).isBetween(200, 299);
        return Canonical.parse(reply.body());
    }

    private String audit(String path) throws Exception {
        HttpResponse<String> reply = ledger.get(path, auditor, null);
        assertThat(reply.statusCode()).as("%s: %s", path, reply.body()).isEqualTo(200);
        return reply.body();
    }

    private JsonNode call(String session, String request, String tool, String arguments) throws Exception {
        return post("/v1/sessions/" + session + "/calls", "{\"requestId\":\"" + request + "\",\"server\":\"pricing\","
                + "\"tool\":\"" + tool + "\",\"operation\":\"invoke\",\"argumentsSha256\":\"" + arguments + "\"}");
    }

    private void outcome(String session, String request, String status) throws Exception {
        post("/v1/sessions/" + session + "/calls/" + request + "/outcome", "{\"status\":\"" + status + "\"}");
    }

    /** Waits until the sequencer has integrated every stored receipt. */
    private void awaitIntegrated() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            JsonNode health = Canonical.parse(ledger.get("/health").body());
            if (health.path("treeSize").asLong() == health.path("receipts").asLong()) {
                return;
            }
            assertThat(System.nanoTime()).as("integration").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Serves a story with every verdict, saves what the live ledger says, stops it and exports. */
    private Path serveAndExport() throws Exception {
        Files.copy(EXAMPLE_POLICY, work.resolve("policy.yaml"));
        ledger = LedgerProcess.serve(work, "--policy", "policy.yaml", "--checkpoint-interval", "200ms");
        try {
            edge = LedgerProcess.token(work, "edge");
            auditor = LedgerProcess.token(work, "auditor");
            String a = post("/v1/sessions", INITIALIZE.formatted("1")).path("session").path("id").asText();
            String args = "11".repeat(32);
            call(a, "r-ok", "quote", args);
            outcome(a, "r-ok", "ok");
            call(a, "r-lost", "discount", "22".repeat(32));
            call(a, "r-refused", "delete", args);
            awaitIntegrated();
            saved.put("stale", audit("/v1/log/checkpoint"));
            // More sessions, so the log is long enough for the workers to share it.
            for (int s = 0; s < 20; s++) {
                String other = post("/v1/sessions", INITIALIZE.formatted("1")).path("session").path("id").asText();
                for (int i = 0; i < 5; i++) {
                    call(other, "q-" + i, "quote", args);
                    outcome(other, "q-" + i, i % 2 == 0 ? "ok" : "error");
                }
            }
            // The edge restarts: its new incarnation resumes, and the call it never finished becomes unknown.
            post("/v1/sessions/" + a + "/resume", "{\"edge\":{\"id\":\"edge-a\",\"incarnation\":\"2\"}}");
            call(a, "r-pending", "quote", args);
            String okReceipt = call(a, "r-again", "discount", "22".repeat(32)).path("receipt").path("id").asText();
            awaitIntegrated();
            saved.put("session", a);
            saved.put("digest", audit("/v1/projections/digest"));
            saved.put("checkpoint", audit("/v1/log/checkpoint"));
            saved.put("vkey", Canonical.parse(ledger.get("/v1/log/public-key").body()).path("vkey").asText());
            saved.put("investigate-lost", audit("/v1/investigate/r-lost?session=" + a));
            saved.put("receipt", ledger.get("/v1/receipts/" + okReceipt, auditor, null).body());
            saved.put("proof", ledger.get("/v1/receipts/" + okReceipt + "/proof", auditor, null).body());
            long staleSize = Long.parseLong(saved.get("stale").split("\n")[1]);
            long size = Long.parseLong(saved.get("checkpoint").split("\n")[1]);
            saved.put("consistency", audit("/v1/log/proof/consistency?from=" + staleSize + "&to=" + size));
            assertThat(ledger.terminate()).isEqualTo(ServeIT.SIGTERM_EXIT);
        } finally {
            ledger.close();
        }
        Process exported = LedgerProcess.run(work, "export", "--out", "bundle");
        assertThat(exported.exitValue()).as(LedgerProcess.read(exported.getErrorStream())).isZero();
        return work.resolve("bundle");
    }

    record Result(int exit, String out, String err) {
    }

    /** Runs the packaged ledger-verify jar alone (nothing else on its class path). */
    static Result verify(Object... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", System.getProperty("ledger.verify.jar")));
        for (Object arg : args) {
            command.add(String.valueOf(arg));
        }
        Path err = Files.createTempFile("ledger-verify", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            builder.environment().remove("CLASSPATH");
            Process process = builder.start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
            return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8), Files.readString(err));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private Path copy(Path bundle, String name) throws Exception {
        Path target = work.resolve(name);
        Files.createDirectories(target);
        try (var files = Files.list(bundle)) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        }
        return target;
    }

    private Path tampered(Path bundle, String name, java.util.function.UnaryOperator<List<String>> change)
            throws Exception {
        Path target = copy(bundle, name);
        List<String> lines = new ArrayList<>(Files.readAllLines(target.resolve("entries.jsonl")));
        List<String> changed = change.apply(lines);
        StringBuilder text = new StringBuilder();
        changed.forEach(l -> text.append(l).append('\n'));
        Files.writeString(target.resolve("entries.jsonl"), text);
        return target;
    }

    private static int lineOf(List<String> lines, String request, String kind) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"request\":\"" + request + "\"") && lines.get(i).contains(kind)) {
                return i;
            }
        }
        throw new AssertionError("no " + kind + " of " + request);
    }

    @Test
    void theVerifierAcceptsTheExportRejectsEveryTamperingReplaysAndInvestigates() throws Exception {
        Path bundle = serveAndExport();
        Path key = work.resolve("state/ledger/public-key.pem"); // obtained separately from the bundle
        List<String> lines = Files.readAllLines(bundle.resolve("entries.jsonl"));
        JsonNode live = Canonical.parse(saved.get("digest"));
        assertThat(lines).hasSize((int) live.path("treeSize").asLong());

        Result ok = verify("log", bundle, "--key", key);
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).startsWith("VALID: " + lines.size() + " entries of the log ");
        assertThat(verify("log", bundle, "--vkey", saved.get("vkey")).exit()).isZero();

        // Replay gives the live digest at the same tree size.
        JsonNode replay = Canonical.parse(verify("replay", bundle, "--json", "--key", key).out());
        assertThat(replay.path("treeSize").asLong()).isEqualTo(live.path("treeSize").asLong());
        assertThat(replay.path("digest").asText()).isEqualTo(live.path("digest").asText());

        // Investigate: 0 known, 3 unknown or pending, 4 not found; the same answer as the live endpoint.
        String session = saved.get("session");
        Result lost = verify("investigate", bundle, "--request-id", "r-lost", "--json", "--key", key);
        assertThat(lost.exit()).isEqualTo(3);
        assertThat(Canonical.parse(lost.out())).isEqualTo(Canonical.parse(saved.get("investigate-lost")));
        assertThat(Canonical.parse(lost.out()).path("verdict").asText()).isEqualTo("outcome_unknown");
        Result lostText = verify("investigate", bundle, "--request-id", "r-lost", "--key", key);
        assertThat(lostText.out()).contains("OUTCOME UNKNOWN", "THE CALL MAY HAVE RUN",
                "before any retry", "request r-again  admitted, pending");
        assertThat(verify("investigate", bundle, "--request-id", "r-ok", "--session", session, "--key", key).exit())
                .isZero();
        assertThat(verify("investigate", bundle, "--request-id", "r-refused", "--key", key).exit()).isZero();
        assertThat(verify("investigate", bundle, "--request-id", "r-pending", "--key", key).exit()).isEqualTo(3);
        assertThat(verify("investigate", bundle, "--request-id", "r-never", "--key", key).exit()).isEqualTo(4);
        Result several = verify("investigate", bundle, "--request-id", "q-1", "--key", key);
        assertThat(several.exit()).isEqualTo(2);
        assertThat(several.err()).contains("was used in 20 sessions; name one with --session ID");

        // A receipt answer and its tlog-proof, and the consistency of an earlier checkpoint with the last.
        Path answer = Files.writeString(work.resolve("receipt.json"), saved.get("receipt"));
        Path proof = Files.writeString(work.resolve("receipt.proof"), saved.get("proof"));
        Result receipt = verify("receipt", answer, "--proof", proof, "--key", key);
        assertThat(receipt.exit()).as(receipt.out()).isZero();
        assertThat(receipt.out()).contains("inclusion   entry ").contains("(from " + proof + ")");
        Path stale = Files.writeString(work.resolve("stale-checkpoint"), saved.get("stale"));
        Path latest = Files.writeString(work.resolve("checkpoint"), saved.get("checkpoint"));
        Path consistency = Files.writeString(work.resolve("consistency.json"), saved.get("consistency"));
        assertThat(verify("consistency", stale, latest, consistency, "--key", key).exit()).isZero();
        assertThat(verify("consistency", latest, stale, consistency, "--key", key).exit()).isEqualTo(1);

        int admitted = lineOf(lines, "r-lost", "call.admitted");
        int pending = lineOf(lines, "r-pending", "call.admitted");
        Map<String, Path> tamperings = new java.util.LinkedHashMap<>();
        Map<String, String> expected = new HashMap<>();

        Path changedByte = copy(bundle, "changed-byte");
        byte[] entries = Files.readAllBytes(changedByte.resolve("entries.jsonl"));
        int offset = new String(entries, StandardCharsets.UTF_8).indexOf("r-lost") + 2;
        entries[offset] = (byte) 'X';
        Files.write(changedByte.resolve("entries.jsonl"), entries);
        tamperings.put("changed byte", changedByte);
        expected.put("changed byte", "line " + (admitted + 1) + " (entry " + admitted + "): the signature of receipt");

        tamperings.put("dropped line", tampered(bundle, "dropped", l -> {
            l.remove(admitted);
            return l;
        }));
        expected.put("dropped line", "line " + (admitted + 1) + " (entry " + admitted + "): session " + session
                + " jumps from seq");

        tamperings.put("duplicated line", tampered(bundle, "duplicated", l -> {
            l.add(pending + 1, l.get(admitted));
            return l;
        }));
        expected.put("duplicated line", "line " + (pending + 2) + " (entry " + (pending + 1) + "): receipt id");

        tamperings.put("swapped lines", tampered(bundle, "swapped", l -> {
            Collections.swap(l, admitted, admitted + 1);
            return l;
        }));
        expected.put("swapped lines", "line " + (admitted + 1) + " (entry " + admitted + "): session " + session);

        Path truncated = copy(bundle, "truncated");
        byte[] all = Files.readAllBytes(truncated.resolve("entries.jsonl"));
        Files.write(truncated.resolve("entries.jsonl"), java.util.Arrays.copyOf(all, all.length - 30));
        tamperings.put("truncated tail", truncated);
        expected.put("truncated tail", "line " + lines.size() + " (entry " + (lines.size() - 1) + "): not a valid"
                + " receipt: not JSON");

        Path staleBundle = copy(bundle, "stale");
        Files.writeString(staleBundle.resolve("checkpoint"), saved.get("stale"));
        tamperings.put("stale checkpoint", staleBundle);
        expected.put("stale checkpoint", "not covered by the checkpoint, which is for the first ");

        Path forged = copy(bundle, "forged");
        String checkpoint = Files.readString(forged.resolve("checkpoint"));
        String[] parts = checkpoint.split("\n", 3);
        Files.writeString(forged.resolve("checkpoint"), parts[0] + "\n" + (Long.parseLong(parts[1]) + 1) + "\n"
                + parts[2]);
        tamperings.put("forged checkpoint", forged);
        expected.put("forged checkpoint", "checkpoint: does not verify: the signature of ");

        // An insider with the signing key re-signs a receipt whose prev points elsewhere: signed, but not chained.
        SigningKey signingKey = SigningKey.fromPem(Files.readString(work.resolve("state/ledger/signing-key.pem")));
        tamperings.put("broken prev chain", tampered(bundle, "prev", l -> {
            try {
                Receipt genuine = Receipt.parse(l.get(pending));
                ReceiptDraft draft = new ReceiptDraft(genuine.id(), genuine.kind(), genuine.at(), genuine.session(),
                        genuine.seq(), "ee".repeat(32), genuine.request(), (ObjectNode) genuine.body());
                l.set(pending, new ReceiptSigner(signingKey, genuine.ledger()).sign(draft).line());
                return l;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        expected.put("broken prev chain", "line " + (pending + 1) + " (entry " + pending + "): session " + session
                + " seq ");

        for (Map.Entry<String, Path> t : tamperings.entrySet()) {
            Result result = verify("log", t.getValue(), "--key", key);
            assertThat(result.exit()).as(t.getKey() + ": " + result.out() + result.err()).isEqualTo(1);
            assertThat(result.out()).as(t.getKey()).startsWith("INVALID: ").contains(expected.get(t.getKey()));
        }
        // replay and investigate verify first: a tampered bundle is an invalid log for them too.
        assertThat(verify("replay", tamperings.get("dropped line"), "--key", key).exit()).isEqualTo(1);
        assertThat(verify("investigate", tamperings.get("changed byte"), "--request-id", "r-ok", "--key", key).exit())
                .isEqualTo(1);
        assertThat(verify("log", tamperings.get("broken prev chain"), "--key", key).out())
                .contains("the prev chain is broken");

        // The wrong key: another ledger's.
        Path otherKey = Files.writeString(work.resolve("other.pem"),
                Ed25519Pem.publicKeyPem(SigningKey.generate(new SecureRandom()).publicKey().raw()));
        Result wrongKey = verify("log", bundle, "--key", otherKey);
        assertThat(wrongKey.exit()).isEqualTo(1);
        assertThat(wrongKey.out()).startsWith("INVALID: checkpoint: does not verify: the note carries no signature");

        TestIo.deleteTree(work.resolve("state"));
    }
}
