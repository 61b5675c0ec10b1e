package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.LedgerMain;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code serve} refusals that come before anything is created. */
class ServeCommandTest {
    @TempDir
    Path temp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = LedgerMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void aPortInUseIsOneLineAndExit2AndCreatesNothing() throws Exception {
        Path state = temp.resolve("state/ledger");
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            int exit = run("serve", "--state", state.toString(), "--listen", "127.0.0.1:" + port);

            assertThat(exit).isEqualTo(2);
            assertThat(err.toString()).isEqualTo("ledger-app serve: cannot listen on 127.0.0.1:" + port
                    + ": another process is listening there; stop it or pass another --listen"
                    + System.lineSeparator());
            assertThat(out.toString()).isEmpty();
            assertThat(temp.resolve("state")).doesNotExist();
        }
    }

    @Test
    void anAddressOfAnotherMachineIsOneLineAndExit2AndCreatesNothing() {
        Path state = temp.resolve("state/ledger");

        // 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface of this machine has it.
        int exit = run("serve", "--state", state.toString(), "--listen", "192.0.2.1:4320");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("ledger-app serve: cannot listen on 192.0.2.1:4320: ")
                .endsWith("; pass an address of this machine to --listen" + System.lineSeparator())
                .doesNotContain("Exception");
        assertThat(err.toString().lines()).hasSize(1);
        assertThat(temp.resolve("state")).doesNotExist();
    }

    @Test
    void aNegativeDiskReserveIsOneLineAndExit2AndCreatesNothing() {
        Path state = temp.resolve("state/ledger");

        int exit = run("serve", "--state", state.toString(), "--disk-reserve-mb", "-1");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("ledger-app serve: --disk-reserve-mb must be 0 or more, got -1"
                + System.lineSeparator());
        assertThat(temp.resolve("state")).doesNotExist();
    }
}
