package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.clientToken;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.CompactRange;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.TlogProof;
import io.mcpledger.domain.log.VerifierKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import java.nio.file.Files;

/**
 * The transparency log over HTTP (contract section 8). The ledger here integrates only when a test says so (its
 * checkpoint interval is an hour), so each test sees a receipt before and after its entry is integrated.
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class LogHttpTest {
    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    @TempDir
    static Path state;
    static HttpLedger ledger;
    static VerifierKey vkey;

    @BeforeParameterizedClassInvocation
    static void start(TestDatabases.Kind database) throws Exception {
        ledger = HttpLedger.start(database, Files.createDirectories(state.resolve(database.name())), HttpLedger.PRICING_POLICY, 10_000, Duration.ofHours(1));
        vkey = VerifierKey.parse(ledger.request("GET", "/v1/log/public-key").send().assertStatus(200)
                .json().path("vkey").asText());
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        ledger.close();
    }

    private static byte[] leafHash(String line) {
        return Merkle.leafHash(line.getBytes(StandardCharsets.UTF_8));
    }

    private static List<byte[]> hashes(JsonNode array) {
        List<byte[]> hashes = new ArrayList<>();
        array.forEach(h -> hashes.add(Base64.getDecoder().decode(h.asText())));
        return hashes;
    }

    // GET /v1/receipts/{id} and /proof.

    @Test
    void aReceiptNotYetIntegratedHasItsIndexButNoInclusionOrCheckpoint() throws Exception {
        Reply initialized = ledger.initialize("not-yet", HttpLedger.initializeJson("not-yet"));
        long expected = ledger.server().engine().projector().position() - 1;

        Reply served = ledger.auditor("GET", "/v1/receipts/" + initialized.receipt().id()).send().assertStatus(200);

        assertThat(served.fieldNames()).containsExactly("receipt", "index");
        assertThat(served.json().path("index").asLong()).isEqualTo(expected);
    }

    @Test
    void theProofOfAReceiptNotYetIntegratedIs409NotIntegratedWithRetryAfter() throws Exception {
        Reply initialized = ledger.initialize("proof-too-soon", HttpLedger.initializeJson("proof-too-soon"));
        String id = initialized.receipt().id();

        Reply proof = ledger.edge("GET", "/v1/receipts/" + id + "/proof").client(clientToken("proof-too-soon")).send();

        assertThat(proof.status()).isEqualTo(409);
        assertThat(proof.errorCode()).isEqualTo("not_integrated");
        assertThat(proof.errorMessage()).contains("receipt " + id + " is log entry");
        assertThat(proof.header("Retry-After")).isEqualTo("3600");
    }

    @Test
    void anIntegratedReceiptCarriesAnInclusionProofInTheSignedCheckpoint() throws Exception {
        Reply initialized = ledger.initialize("included", HttpLedger.initializeJson("included"));
        ledger.integrate();

        Reply served = ledger.edge("GET", "/v1/receipts/" + initialized.receipt().id()).client(clientToken("included"))
                .send().assertStatus(200);

        assertThat(served.fieldNames()).containsExactly("receipt", "index", "inclusion", "checkpoint");
        Checkpoint checkpoint = Checkpoint.open(served.json().path("checkpoint").asText(), vkey);
        JsonNode inclusion = served.json().path("inclusion");
        assertThat(inclusion.path("treeSize").asLong()).isEqualTo(checkpoint.size());
        Merkle.verifyInclusion(served.json().path("index").asLong(), checkpoint.size(),
                leafHash(served.rawReceipt()), hashes(inclusion.path("hashes")), checkpoint.root());
    }

    @Test
    void theTlogProofOfAnIntegratedReceiptVerifiesOffline() throws Exception {
        Reply initialized = ledger.initialize("tlog-proof", HttpLedger.initializeJson("tlog-proof"));
        ledger.integrate();
        String id = initialized.receipt().id();
        long index = ledger.auditor("GET", "/v1/receipts/" + id).send().json().path("index").asLong();

        Reply reply = ledger.edge("GET", "/v1/receipts/" + id + "/proof").client(clientToken("tlog-proof")).send()
                .assertStatus(200);

        assertThat(reply.header("Content-Type")).startsWith("text/plain");
        assertThat(reply.text()).startsWith("c2sp.org/tlog-proof@v1\nindex " + index + "\n");
        TlogProof proof = TlogProof.parse(reply.text());
        Checkpoint checkpoint = Checkpoint.open(proof.checkpoint(), vkey);
        Merkle.verifyInclusion(proof.index(), checkpoint.size(), leafHash(initialized.rawReceipt()), proof.hashes(),
                checkpoint.root());
    }

    @Test
    void aProofForAnotherReceiptFailsToVerify() throws Exception {
        Reply first = ledger.initialize("wrong-leaf-a", HttpLedger.initializeJson("wrong-leaf-a"));
        Reply second = ledger.initialize("wrong-leaf-b", HttpLedger.initializeJson("wrong-leaf-b"));
        ledger.integrate();
        TlogProof proof = TlogProof.parse(ledger.edge("GET", "/v1/receipts/" + first.receipt().id() + "/proof")
                .client(clientToken("wrong-leaf-a")).send()
                .assertStatus(200).text());
        Checkpoint checkpoint = Checkpoint.open(proof.checkpoint(), vkey);

        assertThatThrownBy(() -> Merkle.verifyInclusion(proof.index(), checkpoint.size(),
                leafHash(second.rawReceipt()), proof.hashes(), checkpoint.root()))
                .isInstanceOf(InvalidProofException.class);
    }

    @Test
    void theProofOfAReceiptNeverIssuedIs404() throws Exception {
        ledger.edge("GET", "/v1/receipts/rcpt-never/proof").client(clientToken("anyone")).send()
                .assertError(404, "receipt_not_found", "no committed receipt has id rcpt-never");
    }

    // GET /v1/log/checkpoint and /v1/log/entries.

    @Test
    void theEntriesAreEveryReceiptInIndexOrderAndTheirRootIsTheCheckpoints() throws Exception {
        String session = ledger.initialize("entries");
        Reply call = ledger.call(session, "entries", "r1", "quote").assertStatus(200);
        ledger.integrate();
        Checkpoint checkpoint = ledger.checkpoint();

        List<String> lines = ledger.entries(3);

        assertThat((long) lines.size()).isEqualTo(checkpoint.size());
        CompactRange tree = CompactRange.empty();
        lines.forEach(line -> tree.append(leafHash(line)));
        assertThat(tree.root()).isEqualTo(checkpoint.root());
        long index = ledger.auditor("GET", "/v1/receipts/" + call.receipt().id()).send().json().path("index").asLong();
        assertThat(lines.get((int) index)).isEqualTo(call.rawReceipt());
    }

    @Test
    void entriesStopAtTheIntegratedSize() throws Exception {
        ledger.integrate();
        long size = ledger.checkpoint().size();
        ledger.initialize("past-integrated");

        Reply reply = ledger.auditor("GET", "/v1/log/entries?start=" + (size - 1)).send().assertStatus(200);

        assertThat(reply.text().split("\n")).hasSize(1);
        assertThat(ledger.auditor("GET", "/v1/log/entries?start=" + size).send().assertStatus(200).text()).isEmpty();
    }

    @Test
    void theCheckpointIsSignedForTheOriginAndGrowsWithIntegration() throws Exception {
        ledger.integrate();
        Checkpoint before = ledger.checkpoint();
        ledger.initialize("grows");
        ledger.integrate();

        Checkpoint after = ledger.checkpoint();

        assertThat(after.origin()).isEqualTo(vkey.name());
        assertThat(after.size()).isEqualTo(before.size() + 1);
    }

    // GET /v1/log/proof/consistency.

    @Test
    void aConsistencyProofBetweenTwoCheckpointsVerifies() throws Exception {
        ledger.integrate();
        Checkpoint older = ledger.checkpoint();
        ledger.initialize("consistent-1");
        ledger.initialize("consistent-2");
        ledger.integrate();
        Checkpoint newer = ledger.checkpoint();

        Reply reply = ledger.auditor("GET", "/v1/log/proof/consistency?from=" + older.size() + "&to=" + newer.size())
                .send().assertStatus(200);

        assertThat(reply.fieldNames()).containsExactly("from", "to", "hashes");
        assertThat(reply.json().path("from").asLong()).isEqualTo(older.size());
        assertThat(reply.json().path("to").asLong()).isEqualTo(newer.size());
        Merkle.verifyConsistency(older.size(), newer.size(), hashes(reply.json().path("hashes")), older.root(),
                newer.root());
    }

    @Test
    void aConsistencyProofBetweenEqualSizesIsEmpty() throws Exception {
        ledger.integrate();
        long size = ledger.checkpoint().size();

        Reply reply = ledger.auditor("GET", "/v1/log/proof/consistency?from=" + size + "&to=" + size).send()
                .assertStatus(200);

        assertThat(reply.json().path("hashes")).isEmpty();
    }

    @Test
    void badConsistencyParametersAre400InvalidRequest() throws Exception {
        ledger.integrate();
        long size = ledger.checkpoint().size();
        String range = "query parameters from and to must satisfy 1 <= from <= to <= " + size
                + " (the published tree size), got ";
        assertConsistencyRefused("from=0&to=1", range + "from=0 and to=1");
        assertConsistencyRefused("from=2&to=1", range + "from=2 and to=1");
        assertConsistencyRefused("from=1&to=" + (size + 1), range + "from=1 and to=" + (size + 1));
        assertConsistencyRefused("to=1", "query parameter from is required");
        assertConsistencyRefused("from=1", "query parameter to is required");
        assertConsistencyRefused("from=-1&to=1", "query parameter from must be a non-negative integer, got \"-1\"");
        assertConsistencyRefused("from=1&to=x", "query parameter to must be a non-negative integer, got \"x\"");
        assertConsistencyRefused("from=01&to=1", "query parameter from must be a non-negative integer, got \"01\"");
        assertConsistencyRefused("from=1&to=99999999999999999999",
                "query parameter to is too large, got 99999999999999999999");
    }

    private static void assertConsistencyRefused(String query, String message) throws Exception {
        ledger.auditor("GET", "/v1/log/proof/consistency?" + query).send().assertError(400, "invalid_request", message);
    }

    @Test
    void badEntriesParametersAre400InvalidRequest() throws Exception {
        ledger.integrate();
        long size = ledger.checkpoint().size();
        assertEntriesRefused("start=" + (size + 1), "query parameter start " + (size + 1)
                + " is past the end of the log, which has " + size + " integrated entries");
        assertEntriesRefused("start=-1", "query parameter start must be a non-negative integer, got \"-1\"");
        assertEntriesRefused("start=x", "query parameter start must be a non-negative integer, got \"x\"");
        assertEntriesRefused("limit=0", "query parameter limit must be from 1 to 10000, got 0");
        assertEntriesRefused("limit=10001", "query parameter limit must be from 1 to 10000, got 10001");
        assertEntriesRefused("limit=-5", "query parameter limit must be a non-negative integer, got \"-5\"");
    }

    private static void assertEntriesRefused(String query, String message) throws Exception {
        ledger.auditor("GET", "/v1/log/entries?" + query).send().assertError(400, "invalid_request", message);
    }

    @Test
    void anEdgeMayNotReadTheLog() throws Exception {
        for (String path : List.of("/v1/log/checkpoint", "/v1/log/entries", "/v1/log/proof/consistency?from=1&to=1")) {
            ledger.edge("GET", path).send().assertStatus(403);
        }
    }
}
