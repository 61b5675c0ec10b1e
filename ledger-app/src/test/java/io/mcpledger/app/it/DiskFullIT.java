package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk is lived through (contract sections 11 and 13), against the packaged jar on a small filesystem of its
 * own (a 48 MiB tmpfs mounted by the test, so it needs root: CI runs as root and sets {@code LEDGER_TEST_DISK_FULL=
 * required}; elsewhere the test is skipped). Under load the free space falls under the ledger's reserve: new appends are
 * answered {@code 503 storage_full} with {@code Retry-After} and nothing else, reads and {@code /health} ({@code 503
 * degraded}, naming the cause) still answer; once space is freed, appends are taken again without a restart; and after
 * a stop every acknowledged receipt is in the exported log, which ledger-verify accepts.
 */
class DiskFullIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLIENT = "cd".repeat(32);
    private static final int RESERVE_MB = 12;

    @TempDir
    Path work;

    @Test
    void appendsStopAtTheReserveReadsGoOnAndAppendsResumeWhenSpaceReturns() throws Exception {
        Path disk = Files.createDirectory(work.resolve("state"));
        mountSmallDisk(disk);
        try {
            run(disk);
        } finally {
            Process umount = new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start();
            umount.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private void run(Path disk) throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Path filler = disk.resolve("filler");
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--disk-reserve-mb", String.valueOf(RESERVE_MB),
                "--checkpoint-interval", "200ms", "--policy", policy().toString())) {
            String edge = LedgerProcess.token(work, "edge");
            HttpResponse<String> opened = ledger.post("/v1/sessions", edge, CLIENT,
                    "{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}");
            assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
            String session = JSON.readTree(opened.body()).path("session").path("id").asText();
            acknowledged.add(JSON.readTree(opened.body()).path("receipt").path("id").asText());

            // Leave the reserve and 3 MiB above it, then append until the ledger refuses.
            fill(filler, Files.getFileStore(disk).getUsableSpace() - (RESERVE_MB + 3L << 20));
            AtomicBoolean refusedSeen = new AtomicBoolean();
            AtomicInteger next = new AtomicInteger();
            List<String> refusals = new ArrayList<>();
            ExecutorService load = Executors.newFixedThreadPool(4);
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                workers.add(load.submit(() -> {
                    while (!refusedSeen.get() && next.get() < 200_000) {
                        HttpResponse<String> reply = call(ledger, edge, session, "r-" + next.incrementAndGet());
                        if (reply.statusCode() == 200) {
                            acknowledged.add(JSON.readTree(reply.body()).path("receipt").path("id").asText());
                        } else {
                            synchronized (refusals) {
                                refusals.add(reply.statusCode() + " " + reply.headers().firstValue("Retry-After")
                                        .orElse("-") + " " + reply.body());
                            }
                            refusedSeen.set(true);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(5, TimeUnit.MINUTES);
            }
            load.shutdown();
            assertThat(refusedSeen).as("the ledger refused once the disk was under its reserve").isTrue();
            assertThat(refusals).allSatisfy(r -> assertThat(r).startsWith("503 10 {\"error\":{\"code\":\"storage_full\","
                    + "\"message\":\"the disk holding "));

            // Still refused, nothing appended; reads, proofs and /health answer.
            HttpResponse<String> refused = call(ledger, edge, session, "while-full");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(JSON.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("storage_full");
            HttpResponse<String> health = ledger.get("/health");
            assertThat(health.statusCode()).isEqualTo(503);
            JsonNode healthBody = JSON.readTree(health.body());
            assertThat(healthBody.path("status").asText()).isEqualTo("degraded");
            assertThat(healthBody.path("problem").asText()).startsWith("appends are refused (503 storage_full): the"
                    + " disk holding ").contains(" MiB free");
            assertThat(ledger.get("/v1/sessions/" + session, edge, CLIENT).statusCode()).isEqualTo(200);
            String some = acknowledged.iterator().next();
            assertThat(ledger.get("/v1/receipts/" + some, edge, CLIENT).statusCode()).isEqualTo(200);
            assertThat(ledger.get("/v1/log/checkpoint", LedgerProcess.token(work, "auditor"), null).statusCode())
                    .isEqualTo(200);

            // Space returns: appends are taken again, without a restart.
            Files.delete(filler);
            HttpResponse<String> resumed = null;
            for (int i = 0; i < 100; i++) {
                resumed = call(ledger, edge, session, "after-" + i);
                if (resumed.statusCode() == 200) {
                    acknowledged.add(JSON.readTree(resumed.body()).path("receipt").path("id").asText());
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
            assertThat(ledger.get("/health").statusCode()).isEqualTo(200);
            assertThat(ledger.stderr.stream().filter(l -> l.contains("appends are refused (503 storage_full) until")))
                    .as("one log line when appends stop: %s", ledger.stderr).hasSize(1);
            assertThat(String.join("\n", ledger.stderr)).contains("appends are taken again");
            assertThat(ledger.terminate()).isEqualTo(ServeIT.SIGTERM_EXIT);
        }

        Process exported = LedgerProcess.run(work, "export", "--out", "bundle");
        assertThat(exported.exitValue()).as(LedgerProcess.read(exported.getErrorStream())).isZero();
        VerifyIT.Result verified = VerifyIT.verify("log", work.resolve("bundle"), "--key",
                disk.resolve("ledger/public-key.pem"));
        assertThat(verified.exit()).as(verified.err()).isZero();
        String entries = Files.readString(work.resolve("bundle/entries.jsonl"));
        assertThat(acknowledged).as("every acknowledged receipt is in the log").allSatisfy(id ->
                assertThat(entries).contains("\"id\":\"" + id + "\""));
    }

    /**
     * Without a reserve H2 or the journal meets the full disk itself, and nothing more is stored: every append after
     * that is refused at once ({@code 503 unavailable}, no stack of errors per request), {@code /health} names the
     * failed write, the
     * log stays short, and after a restart on a disk with room every acknowledged receipt is in the log.
     */
    @Test
    void withoutAReserveAFailedWriteIsRefusedQuietlyAndLosesNothing() throws Exception {
        Path disk = Files.createDirectory(work.resolve("state"));
        mountSmallDisk(disk);
        try {
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Path filler = disk.resolve("filler");
            try (LedgerProcess ledger = LedgerProcess.serve(work, "--disk-reserve-mb", "0",
                    "--checkpoint-interval", "200ms", "--policy", policy().toString())) {
                String edge = LedgerProcess.token(work, "edge");
                HttpResponse<String> opened = ledger.post("/v1/sessions", edge, CLIENT,
                        "{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}");
                String session = JSON.readTree(opened.body()).path("session").path("id").asText();
                acknowledged.add(JSON.readTree(opened.body()).path("receipt").path("id").asText());
                fill(filler, Files.getFileStore(disk).getUsableSpace() - (3L << 20));
                int refused = 0;
                for (int i = 0; i < 20_000 && refused < 500; i++) {
                    HttpResponse<String> reply = call(ledger, edge, session, "r-" + i);
                    if (reply.statusCode() == 200) {
                        acknowledged.add(JSON.readTree(reply.body()).path("receipt").path("id").asText());
                    } else {
                        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(503);
                        assertThat(JSON.readTree(reply.body()).path("error").path("code").asText())
                                .isEqualTo("unavailable");
                        refused++;
                    }
                }
                assertThat(refused).as("the disk filled").isEqualTo(500);
                HttpResponse<String> health = ledger.get("/health");
                assertThat(health.statusCode()).isEqualTo(503);
                // Whichever write met the full disk first names it: H2's own, in a commit or behind it (its store
                // failed to write), a forced write of the store, which first writes what H2 holds, such as
                // housekeeping's rewritten pages, or the journal's append of a commit's receipts.
                assertThat(JSON.readTree(health.body()).path("problem").asText())
                        .containsAnyOf("the ledger's store failed to write", "H2 could not write or force",
                                "(the journal: No space left on device)");
                assertThat(ledger.stdout.size() + ledger.stderr.size())
                        .as("500 refusals, not 500 stacks of errors: %s", ledger.stderr).isLessThan(400);
                ledger.terminate();
            }
            Files.delete(filler);
            try (LedgerProcess restarted = LedgerProcess.serve(work, "--disk-reserve-mb", "0")) {
                assertThat(restarted.get("/health").statusCode()).isEqualTo(200);
                assertThat(restarted.terminate()).isEqualTo(ServeIT.SIGTERM_EXIT);
            }
            Process exported = LedgerProcess.run(work, "export", "--out", "bundle");
            assertThat(exported.exitValue()).as(LedgerProcess.read(exported.getErrorStream())).isZero();
            assertThat(VerifyIT.verify("log", work.resolve("bundle"), "--key", disk.resolve("ledger/public-key.pem"))
                    .exit()).isZero();
            String entries = Files.readString(work.resolve("bundle/entries.jsonl"));
            assertThat(acknowledged).as("every acknowledged receipt is in the log").allSatisfy(id ->
                    assertThat(entries).contains("\"id\":\"" + id + "\""));
        } finally {
            Process umount = new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start();
            umount.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static HttpResponse<String> call(LedgerProcess ledger, String edge, String session, String requestId)
            throws IOException, InterruptedException {
        return ledger.post("/v1/sessions/" + session + "/calls", edge, CLIENT, "{\"requestId\":\"" + requestId
                + "\",\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\",\"argumentsSha256\":\""
                + "ab".repeat(32) + "\",\"jsonrpcId\":\"" + "j".repeat(200) + "\"}");
    }

    private Path policy() throws IOException {
        return Files.writeString(work.resolve("policy.yaml"), """
                capabilities:
                  default:
                    tools:
                      - {server: pricing, tool: quote, operations: [invoke], ttl: 3600}
                """);
    }

    private static void fill(Path filler, long bytes) throws IOException {
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (long left = bytes; left > 0; left -= block.length) {
                out.write(block, 0, (int) Math.min(block.length, left));
            }
        }
    }

    /** A 48 MiB tmpfs on {@code dir}: root only. */
    private static void mountSmallDisk(Path dir) throws Exception {
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", dir.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes());
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        if (!mounted) {
            String why = "cannot mount a small tmpfs (needs root): " + said.strip();
            if ("required".equals(System.getenv("LEDGER_TEST_DISK_FULL"))) {
                throw new IllegalStateException("the disk-full test is required here (LEDGER_TEST_DISK_FULL=required)"
                        + " but " + why);
            }
            System.err.println("DiskFullIT skipped: " + why);
            Assumptions.abort("DiskFullIT skipped: " + why);
        }
    }
}
