package io.mcpledger.app.http;

import static io.mcpledger.app.http.HttpLedger.IDLE_EXPIRY;
import static io.mcpledger.app.http.HttpLedger.clientToken;
import static io.mcpledger.app.http.HttpLedger.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.Timestamps;
import io.mcpledger.domain.session.SessionIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The resume table of contract section 4, row by row and in its first-match-wins order, and what a resume does to
 * authority and to calls left without an outcome. Tests share one ledger (each with its own client) unless they
 * change the policy, restart, or let the reaper run.
 */
class ResumeHttpTest extends SharedLedgerTest {
    private static final String NOT_FOUND = "session not found";
    private static final String DELETED = "session has been deleted";
    private static final String EXPIRED = "MCP session expired and must be re-initialized";
    private static final String REVOKED = "the client token has been revoked";
    private static final String UNSUPPORTED = "unsupported protocolVersion 2099-01-01; supported: "
            + "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25";
    private static final String BAD_VERSION = "{\"protocolVersion\":\"2099-01-01\"}";
    private static final Duration IDLE = IDLE_EXPIRY.plusMillis(1);
    private static final String DISCOUNT_ONLY = """
            capabilities:
              default:
                tools:
                  - {server: pricing, tool: discount, operations: [invoke], ttl: 300}
            """;

    // Row 6: otherwise 200 and session.resumed.

    @Test
    void resumingAnActiveSessionAnswers200WithASessionResumedReceipt() throws Exception {
        String id = ledger.initialize("resume-ok");
        long before = ledger.receipts();

        Reply reply = ledger.resume(id, "resume-ok", "{\"protocolVersion\":\"2025-11-25\"}");

        reply.assertStatus(200);
        assertThat(reply.json().size()).isEqualTo(2);
        Receipt receipt = reply.receipt();
        assertThat(receipt.kind().wire()).isEqualTo("session.resumed");
        assertThat(receipt.session()).isEqualTo(id);
        assertThat(receipt.seq()).isEqualTo(2);
        assertThat(receipt.body().path("protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(reply.session().path("id").asText()).isEqualTo(id);
        assertThat(reply.session().path("state").asText()).isEqualTo("active");
        assertThat(reply.session().path("resumes").asLong()).isEqualTo(1);
        assertThat(reply.session().path("protocolVersion").asText()).isEqualTo("2025-11-25");
        assertThat(reply.session().path("seq").asLong()).isEqualTo(2);
        assertThat(reply.session().path("head").asText()).isEqualTo(receipt.hash());
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.resumed");
    }

    @Test
    void aResumeWithoutABodyMeansProtocolVersion20250326() throws Exception {
        String id = ledger.initialize("resume-no-body");

        Reply reply = ledger.resume(id, "resume-no-body", null);

        reply.assertStatus(200);
        assertThat(reply.receipt().body().path("protocolVersion").asText()).isEqualTo("2025-03-26");
        assertThat(reply.session().path("protocolVersion").asText()).isEqualTo("2025-03-26");
    }

    @Test
    void aResumeWithoutProtocolVersionMeans20250326() throws Exception {
        String id = ledger.initialize("resume-no-version");

        Reply reply = ledger.resume(id, "resume-no-version", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}}");

        reply.assertStatus(200);
        assertThat(reply.receipt().body().path("protocolVersion").asText()).isEqualTo("2025-03-26");
        assertThat(reply.session().path("protocolVersion").asText()).isEqualTo("2025-03-26");
    }

    @Test
    void aResumeIssuesAFreshCapabilityFromTheCurrentPolicy() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            Reply initialized = own.initialize("fresh", "{\"principal\":\"fresh\",\"serverId\":\"pricing\","
                    + "\"protocolVersion\":\"2025-06-18\"}");
            String id = initialized.session().path("id").asText();
            String oldCapability = initialized.session().path("capability").path("id").asText();
            own.clock.advance(Duration.ofSeconds(60));
            String narrowed = own.putPolicy(DISCOUNT_ONLY).assertStatus(200).json().path("policy").asText();

            Reply reply = own.resume(id, "fresh", null);

            reply.assertStatus(200);
            String notAfter = Timestamps.format(HttpLedger.T0.plusSeconds(60 + 300));
            String newCapability = reply.session().path("capability").path("id").asText();
            assertThat(newCapability).isNotEqualTo(oldCapability).startsWith("cap-");
            assertThat(reply.session().path("capability")).isEqualTo(parse("{\"id\":\"" + newCapability
                    + "\",\"revoked\":false,\"grants\":[{\"server\":\"pricing\",\"tool\":\"discount\","
                    + "\"operations\":[\"invoke\"],\"notAfter\":\"" + notAfter + "\"}]}"));
            assertThat(reply.receipt().body().path("capability")).isEqualTo(parse("{\"id\":\"" + newCapability
                    + "\",\"grants\":[{\"server\":\"pricing\",\"tool\":\"discount\","
                    + "\"operations\":[\"invoke\"],\"notAfter\":\"" + notAfter + "\"}]}"));
            assertThat(reply.receipt().body().path("policy").asText()).isEqualTo(narrowed);
        }
    }

    @Test
    void aResumeRenewsGrantsWhoseNotAfterHasPassed() throws Exception {
        String id = ledger.initialize("renew");
        ledger.clock.advance(Duration.ofSeconds(301));
        assertThat(ledger.call(id, "renew", "before-renewal", "quote").json().path("reason").path("code").asText())
                .isEqualTo("capability_expired");

        ledger.resume(id, "renew", null).assertStatus(200);

        Reply after = ledger.call(id, "renew", "after-renewal", "quote");
        assertThat(after.json().path("decision").asText()).isEqualTo("admitted");
    }

    // Row 1: id never issued, or tag does not match the token.

    @Test
    void anIdNeverIssuedIs404SessionNotFoundAndAppendsNothing() throws Exception {
        String neverIssued = SessionIds.issue(clientToken("never"), new byte[16]);
        long before = ledger.receipts();

        ledger.resume(neverIssued, "never", null).assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
        ledger.auditor("GET", "/v1/sessions/" + neverIssued).send().assertError(404, "session_not_found", NOT_FOUND);
    }

    @Test
    void anIdOfAnotherShapeIs404SessionNotFound() throws Exception {
        long before = ledger.receipts();

        ledger.resume("mcp-not-an-id", "shape", null).assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void aTagThatDoesNotMatchTheTokenIs404AndTheOwnerCanStillResume() throws Exception {
        String id = ledger.initialize("owner");
        long before = ledger.receipts();

        ledger.resume(id, "mallory", null).assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
        Reply owner = ledger.resume(id, "owner", null);
        owner.assertStatus(200);
        assertThat(owner.receipt().seq()).isEqualTo(2);
    }

    @Test
    void anIdNeverIssuedLeavesTheOwnersSessionResumable() throws Exception {
        String id = ledger.initialize("owner-2");
        String sibling = SessionIds.issue(clientToken("owner-2"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});

        ledger.resume(sibling, "owner-2", null).assertError(404, "session_not_found", NOT_FOUND);

        ledger.resume(id, "owner-2", null).assertStatus(200);
    }

    // Row 2: session deleted.

    @Test
    void aDeletedSessionIs404SessionDeletedAndAppendsNothing() throws Exception {
        String id = ledger.initialize("deleted");
        delete(ledger, id, "deleted");
        long before = ledger.receipts();

        ledger.resume(id, "deleted", null).assertError(404, "session_deleted", DELETED);

        assertThat(ledger.receipts()).isEqualTo(before);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.deleted");
    }

    @Test
    void aDeletedSessionIs404SessionDeletedAfterARestart() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("tombstone");
            delete(own, id, "tombstone");

            own.restart();

            own.resume(id, "tombstone", null).assertError(404, "session_deleted", DELETED);
        }
    }

    // Row 3: idle longer than the expiry.

    @Test
    void anIdleSessionIs410SessionExpiredWithTheSessionExpiredReceipt() throws Exception {
        String id = ledger.initialize("idle");
        ledger.clock.advance(IDLE);
        long before = ledger.receipts();

        Receipt expired = ledger.resume(id, "idle", null).assertErrorWithReceipt(410, "session_expired", EXPIRED);

        assertThat(expired.kind().wire()).isEqualTo("session.expired");
        assertThat(expired.session()).isEqualTo(id);
        assertThat(expired.seq()).isEqualTo(2);
        assertThat(ledger.receipts()).isEqualTo(before + 1);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.expired");
    }

    @Test
    void aSecondResumeOfAnExpiredSessionIs410AndAppendsNothing() throws Exception {
        String id = ledger.initialize("idle-twice");
        ledger.clock.advance(IDLE);
        ledger.resume(id, "idle-twice", null).assertStatus(410);
        long before = ledger.receipts();

        ledger.resume(id, "idle-twice", null).assertError(410, "session_expired", EXPIRED);

        assertThat(ledger.receipts()).isEqualTo(before);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "session.expired");
    }

    @Test
    void aSessionIdleForExactlyTheExpiryIsStillResumed() throws Exception {
        String id = ledger.initialize("boundary");
        ledger.clock.advance(IDLE_EXPIRY);

        ledger.resume(id, "boundary", null).assertStatus(200);
    }

    @Test
    void theReaperExpiresAnIdleSessionOnceAndAResumeThenAppendsNothing() throws Exception {
        try (HttpLedger own = HttpLedger.start(database, ownState)) {
            String id = own.initialize("reaped");
            own.clock.letReaperSeeNow();
            own.clock.advance(IDLE);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (own.kindsOf(id).size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(own.kindsOf(id)).containsExactly("session.initialized", "session.expired");
            long before = own.receipts();

            own.resume(id, "reaped", null).assertError(410, "session_expired", EXPIRED);

            assertThat(own.receipts()).isEqualTo(before);
        }
    }

    // Row 4: token revoked.

    @Test
    void aRevokedTokenIs403TokenRevokedAndAppendsNothing() throws Exception {
        String id = ledger.initialize("revoked");
        revokePrincipal("revoked");
        long before = ledger.receipts();

        ledger.resume(id, "revoked", null).assertError(403, "token_revoked", REVOKED);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    // Row 5: unsupported protocol.

    @Test
    void anUnsupportedProtocolVersionIs400AndAppendsNothing() throws Exception {
        String id = ledger.initialize("old-protocol");
        long before = ledger.receipts();

        ledger.resume(id, "old-protocol", BAD_VERSION).assertError(400, "unsupported_protocol_version", UNSUPPORTED);

        assertThat(ledger.receipts()).isEqualTo(before);
        ledger.resume(id, "old-protocol", null).assertStatus(200);
    }

    // First match wins.

    @Test
    void aForeignTokenOnADeletedSessionIs404SessionNotFound() throws Exception {
        String id = ledger.initialize("deleted-owner");
        delete(ledger, id, "deleted-owner");

        ledger.resume(id, "stranger", null).assertError(404, "session_not_found", NOT_FOUND);
    }

    @Test
    void aForeignTokenOnAnIdleSessionIs404AndDoesNotExpireIt() throws Exception {
        String id = ledger.initialize("idle-owner");
        ledger.clock.advance(IDLE);
        long before = ledger.receipts();

        ledger.resume(id, "stranger", null).assertError(404, "session_not_found", NOT_FOUND);

        assertThat(ledger.receipts()).isEqualTo(before);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized");
    }

    @Test
    void aDeletedSessionPastItsIdleExpiryIs404SessionDeletedAndAppendsNothing() throws Exception {
        String id = ledger.initialize("deleted-idle");
        delete(ledger, id, "deleted-idle");
        ledger.clock.advance(IDLE);
        long before = ledger.receipts();

        ledger.resume(id, "deleted-idle", null).assertError(404, "session_deleted", DELETED);

        assertThat(ledger.receipts()).isEqualTo(before);
    }

    @Test
    void anIdleSessionOfARevokedTokenIs410AndAppendsSessionExpired() throws Exception {
        String id = ledger.initialize("idle-revoked");
        revokePrincipal("idle-revoked");
        ledger.clock.advance(IDLE);

        Receipt expired = ledger.resume(id, "idle-revoked", null).assertErrorWithReceipt(410, "session_expired", EXPIRED);

        assertThat(expired.kind().wire()).isEqualTo("session.expired");
    }

    @Test
    void anIdleSessionWithAnUnsupportedProtocolIs410() throws Exception {
        String id = ledger.initialize("idle-protocol");
        ledger.clock.advance(IDLE);

        ledger.resume(id, "idle-protocol", BAD_VERSION).assertErrorWithReceipt(410, "session_expired", EXPIRED);
    }

    @Test
    void aRevokedTokenWithAnUnsupportedProtocolIs403() throws Exception {
        String id = ledger.initialize("revoked-protocol");
        revokePrincipal("revoked-protocol");

        ledger.resume(id, "revoked-protocol", BAD_VERSION).assertError(403, "token_revoked", REVOKED);
    }

    @Test
    void aForeignTokenWithAnUnsupportedProtocolIs404() throws Exception {
        String id = ledger.initialize("protocol-owner");

        ledger.resume(id, "stranger", BAD_VERSION).assertError(404, "session_not_found", NOT_FOUND);
    }

    // Authority and calls across a resume.

    @Test
    void aResumeAfterCapabilityRevocationKeepsTheSessionWithoutAuthority() throws Exception {
        String id = ledger.initialize("cap-revoked");
        String capability = ledger.operator("POST", "/v1/sessions/" + id + "/revoke").send()
                .assertStatus(200).json().path("capabilityId").asText();

        Reply reply = ledger.resume(id, "cap-revoked", null);

        reply.assertStatus(200);
        assertThat(reply.receipt().body().has("capability")).isFalse();
        assertThat(reply.session().path("capability").path("id").asText()).isEqualTo(capability);
        assertThat(reply.session().path("capability").path("revoked").asBoolean()).isTrue();
        Reply call = ledger.call(id, "cap-revoked", "after-resume", "quote");
        assertThat(call.json().path("decision").asText()).isEqualTo("refused");
        assertThat(call.json().path("reason")).isEqualTo(parse("{\"code\":\"capability_revoked\","
                + "\"message\":\"capability has been revoked: " + capability + "\"}"));
    }

    @Test
    void callsAdmittedByAPreviousIncarnationGetAnUnknownOutcomeOnResume() throws Exception {
        String id = initializeWithEdge("incarnations", "{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}");
        ledger.call(id, "incarnations", "in-flight", "quote").assertStatus(200);
        long before = ledger.receipts();

        Reply reply = ledger.resume(id, "incarnations", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}");

        reply.assertStatus(200);
        assertThat(reply.receipt().kind().wire()).isEqualTo("session.resumed");
        assertThat(ledger.receipts()).isEqualTo(before + 2);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "session.resumed",
                "call.outcome");
        Receipt unknown = ledger.receiptsOf(id).get(3);
        assertThat(unknown.request()).isEqualTo("in-flight");
        assertThat(unknown.body()).isEqualTo(parse("{\"status\":\"unknown\",\"detail\":\"admitted under edge incarnation"
                + " inc-1; the session was resumed by incarnation inc-2 before an outcome was recorded\"}"));
        assertThat(reply.session().path("calls")).isEqualTo(parse(
                "{\"admitted\":1,\"refused\":0,\"completed\":0,\"unknown\":1,\"pending\":0}"));
    }

    @Test
    void callsAdmittedWithoutAnIncarnationGetAnUnknownOutcomeWhenOneResumes() throws Exception {
        String id = ledger.initialize("no-incarnation");
        ledger.call(id, "no-incarnation", "in-flight", "quote").assertStatus(200);

        ledger.resume(id, "no-incarnation", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}").assertStatus(200);

        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "session.resumed",
                "call.outcome");
        assertThat(ledger.receiptsOf(id).get(3).body().path("detail").asText()).isEqualTo("admitted under edge"
                + " incarnation (none); the session was resumed by incarnation inc-2 before an outcome was recorded");
    }

    @Test
    void aResumeByTheSameIncarnationLeavesCallsPending() throws Exception {
        String id = initializeWithEdge("same-incarnation", "{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}");
        ledger.call(id, "same-incarnation", "in-flight", "quote").assertStatus(200);

        Reply reply = ledger.resume(id, "same-incarnation", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}}");

        reply.assertStatus(200);
        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "session.resumed");
        assertThat(reply.session().path("calls").path("pending").asLong()).isEqualTo(1);
    }

    @Test
    void aResumeByAnotherIncarnationLeavesFinishedCallsAlone() throws Exception {
        String id = initializeWithEdge("finished", "{\"id\":\"edge-1\",\"incarnation\":\"inc-1\"}");
        ledger.call(id, "finished", "done", "quote").assertStatus(200);
        ledger.outcome(id, "finished", "done", "{\"status\":\"ok\"}").assertStatus(200);

        ledger.resume(id, "finished", "{\"edge\":{\"id\":\"edge-1\",\"incarnation\":\"inc-2\"}}").assertStatus(200);

        assertThat(ledger.kindsOf(id)).containsExactly("session.initialized", "call.admitted", "call.outcome",
                "session.resumed");
    }

    @Test
    void concurrentResumesOfOneSessionYieldOneSession() throws Exception {
        String id = ledger.initialize("concurrent");
        int resumes = 8;
        long before = ledger.receipts();
        CountDownLatch go = new CountDownLatch(1);
        List<Callable<Reply>> tasks = new ArrayList<>();
        for (int i = 0; i < resumes; i++) {
            tasks.add(() -> {
                go.await();
                return ledger.resume(id, "concurrent", null);
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(resumes);
        List<Reply> replies = new ArrayList<>();
        try {
            List<Future<Reply>> futures = tasks.stream().map(pool::submit).toList();
            go.countDown();
            for (Future<Reply> f : futures) {
                replies.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }

        for (Reply reply : replies) {
            reply.assertStatus(200);
            assertThat(reply.session().path("id").asText()).isEqualTo(id);
        }
        assertThat(replies.stream().map(r -> r.receipt().seq()))
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(2, resumes + 1).boxed().toList());
        assertThat(ledger.receipts()).isEqualTo(before + resumes);
        List<Receipt> chain = ledger.receiptsOf(id);
        assertThat(chain).hasSize(resumes + 1);
        for (int i = 1; i < chain.size(); i++) {
            assertThat(chain.get(i).prev()).isEqualTo(chain.get(i - 1).hash());
        }
        Reply session = ledger.auditor("GET", "/v1/sessions/" + id).send();
        assertThat(session.json().path("resumes").asLong()).isEqualTo(resumes);
        assertThat(session.json().path("seq").asLong()).isEqualTo(resumes + 1);
    }

    private static String initializeWithEdge(String client, String edge) throws Exception {
        return ledger.initialize(client, "{\"principal\":\"" + client + "\",\"serverId\":\"pricing\","
                + "\"protocolVersion\":\"2025-06-18\",\"edge\":" + edge + "}").assertStatus(201)
                .session().path("id").asText();
    }

    private static void delete(HttpLedger on, String id, String client) throws Exception {
        on.edge("DELETE", "/v1/sessions/" + id).client(clientToken(client)).send().assertStatus(200);
    }

    private static void revokePrincipal(String client) throws Exception {
        ledger.operator("POST", "/v1/principals/revoke").json("{\"tokenSha256\":\"" + clientToken(client) + "\"}")
                .send().assertStatus(200);
    }
}
