package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.VerifierKey;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger-app export} through the packaged jar: refused while the ledger runs, complete once it stopped. */
class ExportIT {
    private static final Path EXAMPLE_POLICY = Path.of(System.getProperty("basedir", "."))
            .resolve("../docs/examples/pricing-policy.yaml");

    @TempDir
    Path work;

    @Test
    void aRunningLedgerIsRefusedAndAStoppedOneIsExportedWhole() throws Exception {
        Files.copy(EXAMPLE_POLICY, work.resolve("policy.yaml"));
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--policy", "policy.yaml", "--checkpoint-interval", "1h")) {
            String client = "ab".repeat(32);
            assertThat(ledger.post("/v1/sessions", LedgerProcess.token(work, "edge"), client,
                    "{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}")
                    .statusCode()).isEqualTo(201);

            Process refused = LedgerProcess.run(work, "export", "--out", "bundle");

            assertThat(refused.exitValue()).isEqualTo(2);
            assertThat(LedgerProcess.read(refused.getErrorStream())).isEqualTo("ledger-app export: the ledger still"
                    + " holds the state at ./state/ledger; stop it (SIGTERM) and export again\n");
            assertThat(work.resolve("bundle")).doesNotExist();
            assertThat(ledger.terminate()).isEqualTo(ServeIT.SIGTERM_EXIT);
        }

        Process exported = LedgerProcess.run(work, "export", "--out", "bundle");

        assertThat(exported.exitValue()).as("stderr: %s", LedgerProcess.read(exported.getErrorStream())).isZero();
        assertThat(LedgerProcess.read(exported.getInputStream())).startsWith("Exported 2 entries to bundle");
        Path bundle = work.resolve("bundle");
        Checkpoint checkpoint = Checkpoint.open(Files.readString(bundle.resolve("checkpoint")),
                VerifierKey.parse(Files.readString(bundle.resolve("vkey")).strip()));
        assertThat(checkpoint.size()).isEqualTo(2);
        assertThat(Files.readAllLines(bundle.resolve("entries.jsonl"))).hasSize(2);
    }
}
