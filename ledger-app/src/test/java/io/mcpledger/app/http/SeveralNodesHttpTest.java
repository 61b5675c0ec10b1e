package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.app.storage.DatabaseUrl;
import io.mcpledger.app.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.receipt.Receipt;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three ledger nodes on one PostgreSQL database, each a copy of one state directory: any node answers any request,
 * and the answers are those one node would give (the contract's section on several nodes). Requests of one session
 * are spread over the nodes, concurrently; what one node answered is obeyed by the next request on the others.
 */
class SeveralNodesHttpTest {
    private static final String POLICY_DISCOUNT_ONLY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;

    @TempDir
    Path dir;
    private final List<HttpLedger> nodes = new ArrayList<>();

    private void startNodes(int maxActiveSessions) throws Exception {
        HttpLedger first = HttpLedger.start(TestDatabases.Kind.POSTGRESQL, dir.resolve("node-0"),
                HttpLedger.PRICING_POLICY, maxActiveSessions);
        nodes.add(first);
        for (int i = 1; i < 3; i++) {
            nodes.add(HttpLedger.join(first, dir.resolve("node-" + i), null, maxActiveSessions));
        }
    }

    @AfterEach
    void stop() {
        nodes.forEach(HttpLedger::close);
    }

    private HttpLedger node(int i) {
        return nodes.get(Math.floorMod(i, nodes.size()));
    }

    @Test
    void oneSessionsConcurrentCallsSpreadOverEveryNodeAreAllAdmittedInOneGaplessLinkedChain() throws Exception {
        startNodes(10_000);
        String session = node(0).initialize("alice");

        List<Reply> replies = concurrently(48, i -> () -> node(i).call(session, "alice", "r-" + i, "quote"));

        Set<Long> seqs = new HashSet<>();
        for (int i = 0; i < replies.size(); i++) {
            Reply reply = replies.get(i).assertStatus(200);
            assertThat(reply.json().path("decision").asText()).as(reply.toString()).isEqualTo("admitted");
            assertThat(reply.receipt().request()).isEqualTo("r-" + i);
            seqs.add(reply.receipt().seq());
        }
        assertThat(seqs).hasSize(48);
        // The nodes' batches collided (one session, three nodes) and were decided again, under the log's lock.
        assertThat(nodes.stream().mapToLong(n -> n.server().engine().commandBus().redecided()).sum()).isPositive();
        for (HttpLedger node : nodes) {
            List<Receipt> chain = node.receiptsOf(session);
            assertThat(chain).hasSize(49);
            assertLinked(chain);
            assertThat(node.auditor("GET", "/v1/sessions/" + session).send().assertStatus(200).json()
                    .path("calls").path("admitted").asLong()).isEqualTo(48);
        }
    }

    /** Calls without a session (contract section 15): one client's stream spread over every node, concurrently. */
    @Test
    void oneClientsConcurrentSessionlessCallsOverEveryNodeFormOneChainAndARevocationHoldsEverywhere() throws Exception {
        startNodes(10_000);
        String token = HttpLedger.clientToken("modern");
        String tokenRef = io.mcpledger.domain.session.TokenRefs.of(token);

        List<Reply> replies = concurrently(30, i -> () -> node(i).edge("POST", "/v1/calls").client(token)
                .json("{\"requestId\":\"r-" + i + "\",\"principal\":\"modern\",\"serverId\":\"pricing\","
                        + "\"protocolVersion\":\"2026-07-28\",\"edge\":{\"id\":\"e\",\"incarnation\":\"i\"},"
                        + "\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\","
                        + "\"argumentsSha256\":\"" + HttpLedger.args("r-" + i) + "\"}").send());

        Set<Long> seqs = new HashSet<>();
        for (Reply reply : replies) {
            assertThat(reply.assertStatus(200).json().path("decision").asText()).isEqualTo("admitted");
            seqs.add(reply.receipt().seq());
        }
        assertThat(seqs).hasSize(30).contains(1L, 30L);
        for (HttpLedger node : nodes) {
            node.server().engine().follow();
            List<Receipt> chain = node.server().engine().clientReceipts(tokenRef);
            assertThat(chain).hasSize(30);
            assertLinked(chain);
            assertThat(node.auditor("GET", "/v1/clients/" + tokenRef).send().assertStatus(200).json()
                    .path("calls").path("admitted").asLong()).isEqualTo(30);
        }
        Reply again = node(1).edge("POST", "/v1/calls").client(token)
                .json("{\"requestId\":\"r-0\",\"principal\":\"modern\",\"serverId\":\"pricing\","
                        + "\"protocolVersion\":\"2026-07-28\",\"edge\":{\"id\":\"e\",\"incarnation\":\"i\"},"
                        + "\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\","
                        + "\"argumentsSha256\":\"" + HttpLedger.args("r-0") + "\"}").send().assertStatus(200);
        assertThat(again.receipt()).isEqualTo(replies.get(0).receipt());

        node(0).operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + token + "\"}").send()
                .assertStatus(200);
        node(2).edge("POST", "/v1/calls").client(token)
                .json("{\"requestId\":\"r-after\",\"principal\":\"modern\",\"serverId\":\"pricing\","
                        + "\"protocolVersion\":\"2026-07-28\",\"edge\":{\"id\":\"e\",\"incarnation\":\"i\"},"
                        + "\"server\":\"pricing\",\"tool\":\"quote\",\"operation\":\"invoke\","
                        + "\"argumentsSha256\":\"" + HttpLedger.args("r-after") + "\"}").send()
                .assertErrorWithReceipt(403, "token_revoked", "the client token has been revoked");
    }

    @Test
    void sessionsSpreadRoundRobinKeepTheirChainsAndARepeatedRequestIdGetsTheSameReceiptFromAnyNode()
            throws Exception {
        startNodes(10_000);
        int sessions = 6;
        int calls = 12;
        List<String> ids = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            ids.add(node(s).initialize("client-" + s));
        }

        List<Reply> replies = concurrently(sessions, s -> () -> {
            Reply last = null;
            for (int k = 0; k < calls; k++) {
                last = node(s + k).call(ids.get(s), "client-" + s, "call-" + k, "quote").assertStatus(200);
            }
            return last;
        });

        for (int s = 0; s < sessions; s++) {
            assertThat(replies.get(s).receipt().seq()).isEqualTo(calls + 1);
            List<Receipt> chain = node(s + 1).receiptsOf(ids.get(s));
            assertThat(chain).hasSize(calls + 1);
            assertLinked(chain);
            // The same requestId again, on each node: the stored receipt, nothing appended.
            for (HttpLedger node : nodes) {
                Reply again = node.call(ids.get(s), "client-" + s, "call-3", "quote").assertStatus(200);
                assertThat(again.receipt().id()).isEqualTo(chain.get(4).id());
            }
        }
        long receipts = node(0).server().engine().entries().size();
        assertThat(receipts).isEqualTo(sessions * (calls + 1L) + 1);
    }

    @Test
    void aRevocationAPolicyAndADeleteAnsweredByOneNodeAreObeyedByTheNextRequestOnTheOthers() throws Exception {
        startNodes(10_000);
        String alice = node(0).initialize("alice");
        String bob = node(1).initialize("bob");
        String carol = node(2).initialize("carol");
        // Each node decides once for each session, so every node has the sessions' aggregates cached.
        for (int i = 0; i < 3; i++) {
            node(i).call(alice, "alice", "warm-a" + i, "quote").assertStatus(200);
            node(i).call(bob, "bob", "warm-b" + i, "quote").assertStatus(200);
            node(i).call(carol, "carol", "warm-c" + i, "quote").assertStatus(200);
        }

        node(0).operator("POST", "/v1/principals/revoke")
                .json("{\"tokenSha256\":\"" + HttpLedger.clientToken("alice") + "\"}").send().assertStatus(200);
        Reply refused = node(1).call(alice, "alice", "after-revoke", "quote");
        assertThat(refused.status()).as(refused.toString()).isIn(200, 403);
        assertThat(refused.text()).contains("revoked");
        assertThat(node(2).call(alice, "alice", "after-revoke-2", "quote").text()).contains("revoked");

        node(1).putPolicy(POLICY_DISCOUNT_ONLY).assertStatus(200);
        Reply narrowed = node(2).call(bob, "bob", "after-policy", "quote").assertStatus(200);
        assertThat(narrowed.json().path("decision").asText()).as(narrowed.toString()).isEqualTo("refused");
        assertThat(node(0).call(bob, "bob", "discount-after-policy", "discount").assertStatus(200).json()
                .path("decision").asText()).isEqualTo("admitted");

        node(2).edge("DELETE", "/v1/sessions/" + carol).client(HttpLedger.clientToken("carol")).send()
                .assertStatus(200);
        for (int i = 0; i < 2; i++) {
            Reply afterDelete = node(i).call(carol, "carol", "after-delete-" + i, "discount");
            assertThat(afterDelete.status()).as(afterDelete.toString()).isIn(404, 410);
        }
    }

    @Test
    void theSessionCapCountsTheSessionsOfEveryNode() throws Exception {
        startNodes(5);
        List<Reply> replies = concurrently(18, i -> () -> node(i).initialize("capped-" + i,
                HttpLedger.initializeJson("capped-" + i)));

        long created = replies.stream().filter(r -> r.status() == 201).count();
        long refused = replies.stream().filter(r -> r.status() == 503 && "session_limit".equals(r.errorCode())).count();
        assertThat(created).isEqualTo(5);
        assertThat(refused).isEqualTo(13);
        for (HttpLedger node : nodes) {
            assertThat(node.server().engine().projector().activeSessions()).isLessThanOrEqualTo(5);
        }
    }

    @Test
    void everyNodeServesTheSameCheckpointsProofsAndDigest() throws Exception {
        startNodes(10_000);
        List<Checkpoint> seen = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            int r = round;
            concurrently(6, i -> () -> node(i).call(node(i).initialize("log-" + r + "-" + i), "log-" + r + "-" + i,
                    "c", "quote"));
            node(round).integrate();
            for (HttpLedger node : nodes) {
                seen.add(node.checkpoint());
            }
        }
        for (HttpLedger node : nodes) {
            node.integrate();
        }
        Checkpoint last = node(0).checkpoint();
        for (HttpLedger node : nodes) {
            Checkpoint c = node.checkpoint();
            assertThat(c.size()).isEqualTo(last.size());
            assertThat(c.root()).isEqualTo(last.root());
        }
        for (Checkpoint c : seen) {
            // No two checkpoints of one size differ, and each is consistent with the last, on any node's proof.
            assertThat(seen.stream().filter(o -> o.size() == c.size()).map(o -> Base64.getEncoder()
                    .encodeToString(o.root())).distinct()).hasSize(1);
            if (c.size() > 0 && c.size() < last.size()) {
                HttpLedger node = node((int) c.size());
                Reply proof = node.auditor("GET", "/v1/log/proof/consistency?from=" + c.size() + "&to=" + last.size())
                        .send().assertStatus(200);
                List<byte[]> hashes = new ArrayList<>();
                proof.json().path("hashes").forEach(h -> hashes.add(Base64.getDecoder().decode(h.asText())));
                // Throws when the proof does not hold.
                Merkle.verifyConsistency(c.size(), last.size(), hashes, c.root(), last.root());
            }
        }
        String digest = node(0).auditor("GET", "/v1/projections/digest").send().assertStatus(200).text();
        for (HttpLedger node : nodes) {
            assertThat(node.auditor("GET", "/v1/projections/digest").send().assertStatus(200).text()).isEqualTo(digest);
        }
    }

    @Test
    void nodesStartingTogetherOnAnEmptyDatabaseCreateItOnceAndServeOneLog() throws Exception {
        DatabaseUrl database = TestDatabases.newPostgresDatabase();
        HttpLedger seed = HttpLedger.startOn(database, dir.resolve("seed"));
        seed.close();
        DatabaseUrl empty = TestDatabases.newPostgresDatabase();
        List<HttpLedger> started = concurrently(3, i -> () -> {
            Path copy = dir.resolve("copy-" + i);
            io.mcpledger.app.testing.TestIo.copyTree(dir.resolve("seed"), copy);
            return HttpLedger.startOn(empty, copy);
        });
        nodes.addAll(started);
        String session = node(0).initialize("together");
        node(1).call(session, "together", "r1", "quote").assertStatus(200);
        node(2).call(session, "together", "r2", "quote").assertStatus(200);
        assertLinked(node(2).receiptsOf(session));
        try (Connection c = TestDatabases.connect(empty); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM ledger_meta")) {
            r.next();
            assertThat(r.getLong(1)).isEqualTo(1);
        }
    }

    @Test
    void aNodeOfAnotherLogOrAnOlderLedgerRefusesToStartAndChangesNothing() throws Exception {
        startNodes(10_000);
        node(0).initialize("before");
        long receipts = node(0).server().engine().entries().size();

        assertThatThrownBy(() -> HttpLedger.startOn(node(0).database(), dir.resolve("stranger")))
                .hasMessageContaining("the database holds the log of origin")
                .hasMessageContaining("start every node from a copy of one state directory");

        try (Connection c = TestDatabases.connect(node(0).database()); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE ledger_meta SET schema_version = 99");
        }
        Path copy = dir.resolve("copy");
        io.mcpledger.app.testing.TestIo.copyTree(node(0).stateDirectory, copy);
        assertThatThrownBy(() -> HttpLedger.startOn(node(0).database(), copy))
                .hasMessageContaining("written by a newer ledger (schema 99)");
        assertThat(node(0).server().engine().entries().size()).isEqualTo(receipts);
    }

    private static void assertLinked(List<Receipt> chain) {
        for (int i = 0; i < chain.size(); i++) {
            assertThat(chain.get(i).seq()).isEqualTo(i + 1);
            assertThat(chain.get(i).prev()).isEqualTo(i == 0 ? null : chain.get(i - 1).hash());
        }
    }

    /** Runs {@code n} tasks on {@code n} threads released at once; their results in task order. */
    private static <T> List<T> concurrently(int n, IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Callable<T> work = task.apply(i);
                futures.add(pool.submit(() -> {
                    go.await();
                    return work.call();
                }));
            }
            go.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
