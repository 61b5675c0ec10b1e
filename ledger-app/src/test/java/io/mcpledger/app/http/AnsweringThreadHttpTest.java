package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.testing.TestDatabases;
import io.mcpledger.domain.crypto.Sha256;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the real server: the answers that wait for a commit (an initialize, an admission, an outcome) are
 * rendered and sent on the HTTP event loop, never on the command worker that committed them ({@code Replies.later}).
 */
class AnsweringThreadHttpTest {
    private static final String TOKEN = HttpLedger.clientToken("alice");

    @TempDir
    Path dir;

    @Test
    void committedAnswersAreRenderedOnTheEventLoopNotOnTheCommitWorker() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(TestDatabases.Kind.H2, dir)) {
            String run = UUID.randomUUID().toString();
            Reply initialized = ledger.edge("POST", "/v1/sessions").client(TOKEN)
                    .header(AnsweringThreadFilter.HEADER, run + "-initialize").json(HttpLedger.initializeJson("alice")).send();
            assertThat(initialized.status()).as(initialized.toString()).isEqualTo(201);
            String session = initialized.json().path("session").path("id").asText();

            // With a query, so that Micronaut's controller serves it (DirectCalls serves a plain target ahead of it, on the
            // event loop by construction: DirectCallsHttpTest).
            Reply call = ledger.edge("POST", "/v1/sessions/" + session + "/calls?via=controller").client(TOKEN)
                    .header(AnsweringThreadFilter.HEADER, run + "-call")
                    .json(HttpLedger.callJson("r-1", "pricing", "quote", HttpLedger.args("r-1"))).send();
            assertThat(call.status()).as(call.toString()).isEqualTo(200);
            assertThat(call.json().path("decision").asText()).isEqualTo("admitted");

            Reply outcome = ledger.edge("POST", "/v1/sessions/" + session + "/calls/r-1/outcome").client(TOKEN)
                    .header(AnsweringThreadFilter.HEADER, run + "-outcome").json("""
                            {"status":"ok","resultSha256":"%s"}""".formatted(Sha256.hexOfUtf8("result"))).send();
            assertThat(outcome.status()).as(outcome.toString()).isEqualTo(200);

            for (String step : new String[] {"initialize", "call", "outcome"}) {
                assertThat(AnsweringThreadFilter.THREADS.get(run + "-" + step)).as(step)
                        .isNotNull()
                        .contains("eventLoop")
                        .doesNotContain("ledger-commit");
            }
        }
    }
}
