package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FixtureSmokeTest {
    @TempDir
    Path dir;

    @Test
    void initializeAnswers201() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(dir)) {
            var reply = ledger.edge("POST", "/v1/sessions").client(HttpLedger.clientToken("a"))
                    .json("{\"principal\":\"alice\",\"serverId\":\"pricing\",\"protocolVersion\":\"2025-06-18\"}").send();
            assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
            assertThat(ledger.receipts()).isEqualTo(2);
            ledger.restart();
            assertThat(ledger.receipts()).isEqualTo(2);
        }
    }
}
