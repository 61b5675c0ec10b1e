package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code serve} through the packaged jar: start, answer, stop on SIGTERM, restart as a replay, refuse bad input. */
class ServeIT {
    static final String POLICY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: quote, operations: [invoke], ttl: 300}
            """;

    /** What a JVM exits with after running its shutdown hooks on SIGTERM. */
    static final int SIGTERM_EXIT = 143;

    @TempDir
    Path work;

    @Test
    void servesOnAFreshStateStopsOnSigtermAndRestartsByReplay() throws Exception {
        Files.writeString(work.resolve("policy.yaml"), POLICY);
        try (LedgerProcess ledger = LedgerProcess.serve(work, "--policy", "policy.yaml")) {
            assertThat(ledger.stdout).contains("Ready: ./state/ledger. Listening on 127.0.0.1:" + ledger.port
                    + ". Credentials: ./state/ledger/credentials/");
            HttpResponse<String> health = ledger.get("/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"receipts\":1");
            assertThat(ledger.terminate()).isEqualTo(SIGTERM_EXIT);
            assertThat(ledger.stdout).as("stderr: %s", ledger.stderr).last().isEqualTo("Stopped: ./state/ledger. Every answered receipt is stored.");
            assertThat(ledger.stderr).isEmpty();
        }
        assertThat(work.resolve("state/ledger/ledger.mv.db")).exists();
        assertThat(work.resolve("state/ledger/signing-key.pem")).exists();

        try (LedgerProcess restarted = LedgerProcess.serve(work, "--policy", "policy.yaml")) {
            assertThat(restarted.get("/health").body()).contains("\"receipts\":1");
            assertThat(restarted.terminate()).isEqualTo(SIGTERM_EXIT);
        }
    }

    @Test
    void aSecondLedgerOnTheSameStateIsRefused() throws Exception {
        try (LedgerProcess ledger = LedgerProcess.serve(work)) {
            Process second = LedgerProcess.run(work, "serve", "--listen", "127.0.0.1:" + LedgerProcess.freePort());

            assertThat(second.exitValue()).isEqualTo(2);
            assertThat(LedgerProcess.read(second.getErrorStream())).isEqualTo("ledger-app serve: the ledger state at "
                    + work.resolve("state/ledger").toAbsolutePath().normalize()
                    + " is in use by another process; stop that process or pass a different --state directory\n");
            ledger.terminate();
        }
    }

    @Test
    void anInvalidPolicyFileIsOneLineAndExit2AndCreatesNothing() throws Exception {
        Files.writeString(work.resolve("bad.yaml"), "capabilities:\n  default:\n    tools:\n      - {server: p, tool: q, operations: [invoke], ttl: 1.5}\n");

        Process serve = LedgerProcess.run(work, "serve", "--policy", "bad.yaml", "--listen",
                "127.0.0.1:" + LedgerProcess.freePort());

        assertThat(serve.exitValue()).isEqualTo(2);
        assertThat(LedgerProcess.read(serve.getErrorStream())).isEqualTo(
                "ledger-app serve: policy file bad.yaml: 'capabilities.default.tools[0].ttl' must be an integer number"
                        + " of seconds from 1 to 316224000\n");
        assertThat(work.resolve("state")).doesNotExist();
    }

    @ParameterizedTest
    @CsvSource({"--max-active-sessions, 0, must be at least 1", "--cache-calls, -1, must be at least 0",
            "--cache-sessions, -1, must be at least 0", "--store-cache-mb, 0, must be at least 1",
            "--cache-tiles, -1, must be at least 0", "--commit-linger-us, -1, must be between 0 and 10000",
            "--commit-linger-us, 10001, must be between 0 and 10000"})
    void aBadLimitIsOneLineAndExit2AndCreatesNothing(String flag, String value, String rule) throws Exception {
        Process serve = LedgerProcess.run(work, "serve", flag, value);

        assertThat(serve.exitValue()).isEqualTo(2);
        assertThat(LedgerProcess.read(serve.getErrorStream()))
                .isEqualTo("ledger-app serve: " + flag + " " + rule + ", got " + value + "\n");
        assertThat(work.resolve("state")).doesNotExist();
    }
}
