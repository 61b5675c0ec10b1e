package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.http.HttpLedger.Reply;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Receipt;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.mcpledger.app.testing.TestDatabases;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Contract section 11 under load: per session, receipts are linearizable (no two share a {@code seq}, {@code prev}
 * always links), a DELETE that was answered wins over every later request, and {@code --max-active-sessions}
 * holds however many initializes race for the last places.
 */
@ParameterizedClass
@EnumSource(TestDatabases.Kind.class)
class ConcurrencyHttpTest {
    /** The store of this run of the class: every test runs on H2 and on PostgreSQL. */
    @Parameter
    TestDatabases.Kind database;

    private static final String TOKEN = HttpLedger.clientToken("alice");
    private static final String INITIALIZE = """
            {"principal":"alice","serverId":"pricing","protocolVersion":"2025-06-18"}""";
    private static final int ROUNDS = 30;
    private static final int RACERS = 4;

    @TempDir
    Path dir;

    @Test
    void sixtyFourConcurrentCallsInOneSessionAreAllAdmittedWithGaplessLinkedReceipts() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(database, dir)) {
            Reply initialized = initialize(ledger, TOKEN);
            String session = sessionId(initialized);

            List<Reply> replies = concurrently(64, i -> () -> call(ledger, session, "r-" + i));

            List<Receipt> chain = new ArrayList<>(List.of(initialized.receipt()));
            for (int i = 0; i < replies.size(); i++) {
                Reply reply = replies.get(i);
                assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
                assertThat(reply.json().path("decision").asText()).as(reply.toString()).isEqualTo("admitted");
                assertThat(reply.json().path("callId").asText()).isEqualTo("r-" + i);
                assertThat(reply.receipt().request()).isEqualTo("r-" + i);
                chain.add(reply.receipt());
            }
            chain.sort(Comparator.comparingLong(Receipt::seq));
            assertLinkedChain(chain);
            assertThat(chain.stream().map(Receipt::seq)).containsExactlyElementsOf(LongStream.rangeClosed(1, 65).boxed().toList());
            Reply state = ledger.auditor("GET", "/v1/sessions/" + session).send();
            assertThat(state.json().path("seq").asLong()).isEqualTo(65);
            assertThat(state.json().path("head").asText()).isEqualTo(chain.get(64).hash());
            assertThat(state.json().path("calls").path("admitted").asLong()).isEqualTo(64);
        }
    }

    @Test
    void anAnsweredDeleteWinsOverEveryCallAndResumeSentAfterIt() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(RACERS + 1);
        try (HttpLedger ledger = HttpLedger.start(database, dir)) {
            int sentAfterDelete = 0;
            for (int round = 0; round < ROUNDS; round++) {
                sentAfterDelete += raceCallsAndResumesAgainstDelete(ledger, pool, round);
            }
            assertThat(sentAfterDelete).as("requests sent after a DELETE was answered").isEqualTo(ROUNDS * RACERS);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One round: a fresh session, RACERS threads sending calls and resumes in a loop, and a DELETE a few
     * milliseconds in; each racer stops after its first request sent once the DELETE was answered.
     */
    private static int raceCallsAndResumesAgainstDelete(HttpLedger ledger, ExecutorService pool, int round) throws Exception {
        Reply initialized = initialize(ledger, TOKEN);
        String session = sessionId(initialized);
        Queue<Sent> sent = new ConcurrentLinkedQueue<>();
        AtomicLong deleteAnswered = new AtomicLong(Long.MAX_VALUE);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> racers = new ArrayList<>();
        for (int r = 0; r < RACERS; r++) {
            int racer = r;
            racers.add(pool.submit(() -> {
                go.await();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int afterDelete = 0;
                for (int n = 0; afterDelete < 1 && System.nanoTime() < deadline; n++) {
                    boolean resume = (n + racer) % 2 == 1;
                    long at = System.nanoTime();
                    Reply reply = resume
                            ? ledger.edge("POST", "/v1/sessions/" + session + "/resume").client(TOKEN).send()
                            : call(ledger, session, "round" + round + "-racer" + racer + "-" + n);
                    sent.add(new Sent(resume ? "resume" : "call", at, reply));
                    if (at > deleteAnswered.get()) {
                        afterDelete++;
                    }
                }
                return null;
            }));
        }
        Future<Reply> deleter = pool.submit(() -> {
            go.await();
            Thread.sleep(ThreadLocalRandom.current().nextInt(0, 30));
            Reply reply = ledger.edge("DELETE", "/v1/sessions/" + session).client(TOKEN).send();
            deleteAnswered.set(System.nanoTime());
            return reply;
        });
        go.countDown();
        Reply deleted = deleter.get(20, TimeUnit.SECONDS);
        for (Future<?> racer : racers) {
            racer.get(20, TimeUnit.SECONDS);
        }
        assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
        long deleteAnsweredAt = deleteAnswered.get();

        List<Receipt> chain = new ArrayList<>(List.of(initialized.receipt(), deleted.receipt()));
        int after = 0;
        for (Sent s : sent) {
            Reply reply = s.reply();
            if (s.sentAt() > deleteAnsweredAt) {
                after++;
                assertThat(reply.status()).as("round %d: %s sent after the DELETE was answered: %s", round, s.what(), reply)
                        .isEqualTo(404);
                assertThat(reply.errorCode()).as(reply.toString()).isEqualTo("session_deleted");
            } else if (reply.status() == 200) {
                assertThat(reply.receipt().kind().wire()).as(reply.toString())
                        .isEqualTo(s.what().equals("call") ? "call.admitted" : "session.resumed");
                chain.add(reply.receipt());
            } else {
                assertThat(reply.errorCode()).as("round %d: %s raced the DELETE: %s", round, s.what(), reply)
                        .isEqualTo("session_deleted");
            }
        }
        chain.sort(Comparator.comparingLong(Receipt::seq));
        assertLinkedChain(chain);
        Reply state = ledger.auditor("GET", "/v1/sessions/" + session).send();
        assertThat(state.json().path("state").asText()).isEqualTo("deleted");
        assertThat(state.json().path("seq").asLong()).as("every receipt of the session was answered to someone")
                .isEqualTo(chain.size());
        assertThat(state.json().path("head").asText()).isEqualTo(chain.get(chain.size() - 1).hash());
        assertThat(chain.get(chain.size() - 1).kind().wire()).as("round %d: the last session-state change", round)
                .isEqualTo("session.deleted");
        return after;
    }

    /** What a racer sent, when ({@link System#nanoTime()} just before sending) and the answer. */
    private record Sent(String what, long sentAt, Reply reply) {
    }

    @Test
    void exactlyMaxActiveSessionsOfManyConcurrentInitializesAreCreated() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(database, dir, HttpLedger.PRICING_POLICY, 5)) {
            long receipts = ledger.receipts();

            List<Reply> replies = concurrently(48, i -> () -> initialize(ledger, HttpLedger.clientToken("client " + i)));

            assertCreated(replies, 5);
            assertThat(ledger.receipts()).isEqualTo(receipts + 5);
            assertThat(activeSessionIds(ledger)).containsExactlyInAnyOrderElementsOf(
                    replies.stream().filter(r -> r.status() == 201).map(ConcurrencyHttpTest::sessionId).toList());
        }
    }

    @Test
    void sessionsDeletedAtTheCapFreeExactlyTheirPlacesForConcurrentInitializes() throws Exception {
        try (HttpLedger ledger = HttpLedger.start(database, dir, HttpLedger.PRICING_POLICY, 5)) {
            List<String> tokens = IntStream.range(0, 5).mapToObj(i -> HttpLedger.clientToken("first " + i)).toList();
            List<String> first = new ArrayList<>();
            for (String token : tokens) {
                first.add(sessionId(initialize(ledger, token)));
            }
            for (int i = 0; i < 2; i++) {
                Reply deleted = ledger.edge("DELETE", "/v1/sessions/" + first.get(i)).client(tokens.get(i)).send();
                assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
            }
            long receipts = ledger.receipts();

            List<Reply> replies = concurrently(48, i -> () -> initialize(ledger, HttpLedger.clientToken("second " + i)));

            assertCreated(replies, 2);
            assertThat(ledger.receipts()).isEqualTo(receipts + 2);
            assertThat(activeSessionIds(ledger)).hasSize(5).containsAll(first.subList(2, 5));
        }
    }

    private static void assertCreated(List<Reply> replies, int created) {
        assertThat(replies.stream().filter(r -> r.status() == 201)).as("201 answers").hasSize(created);
        for (Reply reply : replies) {
            if (reply.status() != 201) {
                assertThat(reply.status()).as(reply.toString()).isEqualTo(503);
                assertThat(reply.errorCode()).isEqualTo("session_limit");
                assertThat(reply.header("Retry-After")).as("Retry-After").matches("[1-9][0-9]*");
                assertThat(reply.json().has("receipt")).isFalse();
            }
        }
    }

    /** Receipts of one session in {@code seq} order: 1, 2, 3... each {@code prev} the SHA-256 of the one before. */
    private static void assertLinkedChain(List<Receipt> chain) {
        String session = chain.get(0).session();
        for (int i = 0; i < chain.size(); i++) {
            Receipt receipt = chain.get(i);
            assertThat(receipt.session()).isEqualTo(session);
            assertThat(receipt.seq()).as("seq of receipt %d", i).isEqualTo(i + 1);
            String expectedPrev = i == 0 ? null : Sha256.hex(chain.get(i - 1).lineBytes());
            assertThat(receipt.prev()).as("prev of seq %d", i + 1).isEqualTo(expectedPrev);
            if (i > 0) {
                assertThat(receipt.prev()).isEqualTo(chain.get(i - 1).hash());
            }
        }
    }

    private static List<String> activeSessionIds(HttpLedger ledger) throws Exception {
        Reply reply = ledger.auditor("GET", "/v1/sessions?state=active&limit=1000").send();
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        reply.json().path("sessions").forEach(s -> ids.add(s.path("id").asText()));
        return ids;
    }

    private static Reply initialize(HttpLedger ledger, String token) throws Exception {
        return ledger.edge("POST", "/v1/sessions").client(token).json(INITIALIZE).send();
    }

    private static Reply call(HttpLedger ledger, String session, String requestId) throws Exception {
        return ledger.edge("POST", "/v1/sessions/" + session + "/calls").client(TOKEN).json("""
                {"requestId":"%s","server":"pricing","tool":"quote","operation":"invoke","argumentsSha256":"%s"}"""
                .formatted(requestId, Sha256.hexOfUtf8(requestId))).send();
    }

    private static String sessionId(Reply initialized) {
        assertThat(initialized.status()).as(initialized.toString()).isEqualTo(201);
        return initialized.json().path("session").path("id").asText();
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
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
