package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.app.metrics.LedgerMetrics;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.receipt.Canonical;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DirectCalls} reads a connection further only while it holds none of its requests: a client that pipelines
 * requests behind a call waiting for its decision has them read one read at a time, not without end into the handler's
 * memory. Driven on an embedded channel whose reads are counted, with the shared ledger deciding the calls.
 */
class DirectCallsReadsTest extends SharedLedgerTest {
    private final AtomicInteger reads = new AtomicInteger();
    private EmbeddedChannel channel;

    @BeforeEach
    void channel() {
        DirectCalls.Service service = new DirectCalls.Service(ledger.server().engine(),
                ledger.server().bean(Credentials.class), ledger.server().bean(LedgerMetrics.class));
        channel = new EmbeddedChannel();
        // As Micronaut sets it: each read is asked for.
        channel.config().setAutoRead(false);
        channel.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void read(ChannelHandlerContext ctx) {
                reads.incrementAndGet();
                ctx.read();
            }
        }, new DirectCalls(() -> service));
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void noReadIsMadeWhileARequestWaitsBehindACallThatWaitsForItsDecision() throws Exception {
        String id = ledger.initialize("reads");
        String edge = ledger.credential(Role.EDGE);
        channel.read();
        assertThat(reads.get()).as("nothing held: a read is made").isEqualTo(1);

        // Fired and asked for through the pipeline, so that none of the loop's tasks runs between: the channel's own
        // writeInbound and read run them first, and on a busy machine the first call's answer could then be written
        // (its decision already made) before the read is asked for, with nothing held any more.
        channel.pipeline().fireChannelRead(head(id, "reads", edge)).fireChannelRead(body("r1"))
                .fireChannelRead(head(id, "reads", edge)).fireChannelRead(body("r2"));
        channel.pipeline().read();
        assertThat(reads.get()).as("the second call waits behind the first: no read").isEqualTo(1);

        FullHttpResponse first = nextAnswer();
        // Answering the first served the second from what was held; with nothing held, the read asked for is made.
        assertThat(reads.get()).isEqualTo(2);
        FullHttpResponse second = nextAnswer();
        assertThat(first.status().code()).isEqualTo(200);
        assertThat(second.status().code()).isEqualTo(200);
        assertThat(Canonical.parse(first.content().toString(StandardCharsets.UTF_8)).path("callId").asText())
                .isEqualTo("r1");
        assertThat(Canonical.parse(second.content().toString(StandardCharsets.UTF_8)).path("callId").asText())
                .isEqualTo("r2");
        first.release();
        second.release();

        channel.read();
        assertThat(reads.get()).as("nothing held again: reads are made").isEqualTo(3);
    }

    /** Runs the channel's tasks (the decisions' answers) until an answer is written. */
    private FullHttpResponse nextAnswer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            channel.runPendingTasks();
            FullHttpResponse answer = channel.readOutbound();
            if (answer != null) {
                return answer;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no answer within 30 s");
    }

    private static HttpRequest head(String sessionId, String client, String credential) {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                "/v1/sessions/" + sessionId + "/calls");
        request.headers().set(HttpHeaderNames.HOST, "ledger");
        request.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + credential);
        request.headers().set(SessionController.CLIENT_TOKEN, HttpLedger.clientToken(client));
        request.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        return request;
    }

    private static DefaultLastHttpContent body(String requestId) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(
                HttpLedger.callJson(requestId, "pricing", "quote", HttpLedger.args(requestId)),
                StandardCharsets.UTF_8));
    }
}
