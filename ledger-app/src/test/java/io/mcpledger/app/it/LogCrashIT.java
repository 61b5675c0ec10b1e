package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.VerifierKey;
import io.mcpledger.domain.receipt.Canonical;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} between append and integration (contract sections 8 and 11): receipts committed and answered, with their
 * log index, but not yet in any checkpoint. After a restart every one keeps its index, is integrated, and its
 * inclusion proof verifies; the root recomputed from the served entries is the checkpoint's.
 */
class LogCrashIT {
    private static final Path EXAMPLE_POLICY = Path.of(System.getProperty("basedir", "."))
            .resolve("../docs/examples/pricing-policy.yaml");
    private static final int THREADS = 8;
    private static final int CALLS = 400;
    private static final String ARGUMENTS_SHA256 = Sha256.hexOfUtf8("{\"sku\":\"A-1\",\"qty\":3}");

    @TempDir
    Path work;

    @Test
    void receiptsKilledBeforeIntegrationKeepTheirIndexesAndAreIntegratedAfterTheRestart() throws Exception {
        Files.copy(EXAMPLE_POLICY, work.resolve("policy.yaml"));
        Map<String, Long> indexes = new ConcurrentHashMap<>();
        Map<String, String> lines = new ConcurrentHashMap<>();
        String edge;
        String auditor;
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--policy", "policy.yaml", "--checkpoint-interval", "1h")) {
            edge = LedgerProcess.token(work, "edge");
            auditor = LedgerProcess.token(work, "auditor");
            callConcurrently(ledger, edge, lines);
            for (String id : lines.keySet()) {
                JsonNode served = Canonical.parse(ledger.get("/v1/receipts/" + id, auditor, null).body());
                assertThat(served.has("inclusion")).as("receipt %s integrated before the kill", id).isFalse();
                indexes.put(id, served.path("index").asLong());
            }
            assertThat(Checkpoint.parseBody(body(ledger.get("/v1/log/checkpoint", auditor, null))).size())
                    .as("entries integrated before the kill").isZero();
            ledger.kill();
        }
        assertThat(indexes.values()).as("indexes answered before the kill").doesNotHaveDuplicates();

        try (LedgerProcess restarted = LedgerProcess.serve(work)) {
            VerifierKey vkey = VerifierKey.parse(Canonical.parse(restarted.get("/v1/log/public-key").body())
                    .path("vkey").asText());
            Checkpoint checkpoint = Checkpoint.open(body(restarted.get("/v1/log/checkpoint", auditor, null)), vkey);
            assertThat(checkpoint.size()).as("entries after the restart").isEqualTo(lines.size() + 1L);

            List<String> entries = entries(restarted, auditor);
            CompactRange recomputed = CompactRange.empty();
            entries.forEach(line -> recomputed.append(Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8))));
            assertThat(recomputed.root()).as("root of the served entries").isEqualTo(checkpoint.root());

            for (Map.Entry<String, Long> answered : indexes.entrySet()) {
                String id = answered.getKey();
                JsonNode served = Canonical.parse(restarted.get("/v1/receipts/" + id, auditor, null).body());
                long index = served.path("index").asLong();
                assertThat(index).as("index of %s after the restart", id).isEqualTo(answered.getValue());
                assertThat(entries.get((int) index)).as("entry %d", index).isEqualTo(lines.get(id));
                List<byte[]> path = new ArrayList<>();
                served.path("inclusion").path("hashes").forEach(h -> path.add(Base64.getDecoder().decode(h.asText())));
                Merkle.verifyInclusion(index, checkpoint.size(),
                        Merkle.leafHash(lines.get(id).getBytes(StandardCharsets.UTF_8)), path, checkpoint.root());
            }
        }
    }

    /** {@value #CALLS} admissions from {@value #THREADS} threads on as many sessions; keeps each receipt's line by id. */
    private static void callConcurrently(LedgerProcess ledger, String edge, Map<String, String> lines) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    String client = Sha256.hexOfUtf8("log-crash-client-" + thread);
                    HttpResponse<String> created = ledger.post("/v1/sessions", edge, client,
                            "{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}");
                    assertThat(created.statusCode()).as("initialize: %s", created.body()).isEqualTo(201);
                    JsonNode session = Canonical.parse(created.body());
                    keep(session, lines);
                    String id = session.path("session").path("id").asText();
                    for (int i = 0; i < CALLS / THREADS; i++) {
                        HttpResponse<String> admitted = ledger.post("/v1/sessions/" + id + "/calls", edge, client,
                                "{\"requestId\":\"req-" + thread + "-" + i + "\",\"server\":\"pricing\",\"tool\":\"quote\","
                                        + "\"operation\":\"invoke\",\"argumentsSha256\":\"" + ARGUMENTS_SHA256 + "\"}");
                        assertThat(admitted.statusCode()).as("call: %s", admitted.body()).isEqualTo(200);
                        keep(Canonical.parse(admitted.body()), lines);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void keep(JsonNode answer, Map<String, String> lines) {
        JsonNode receipt = answer.get("receipt");
        lines.put(receipt.path("id").asText(), Canonical.jcs(receipt));
    }

    private static List<String> entries(LedgerProcess ledger, String auditor) throws Exception {
        List<String> entries = new ArrayList<>();
        while (true) {
            String page = body(ledger.get("/v1/log/entries?start=" + entries.size() + "&limit=100", auditor, null));
            if (page.isEmpty()) {
                return entries;
            }
            entries.addAll(List.of(page.split("\n")));
        }
    }

    private static String body(HttpResponse<String> answer) {
        assertThat(answer.statusCode()).as("answer %s", answer.body()).isEqualTo(200);
        return answer.body();
    }
}
