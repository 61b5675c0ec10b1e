package io.mcpledger.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpFraming.CallTimer}: a tool call is timed from the read that brought its first byte to the write of its
 * answer, paired by order on a connection (pipelined requests included); other requests and interim answers are not.
 */
class CallTimerTest {
    @Test
    void timesEachCallFromItsFirstByteToItsAnswerAndNothingElse() throws Exception {
        List<Long> answered = new ArrayList<>();
        HttpFraming.Deadline deadline = new HttpFraming.Deadline(Duration.ofSeconds(30));
        EmbeddedChannel channel = new EmbeddedChannel(deadline, new HttpServerCodec(),
                new HttpFraming.Check(deadline), new HttpFraming.CallTimer(deadline, answered::add));

        // A session's call and a GET in one read (pipelined); a sessionless call with a query 30 ms later.
        read(channel, "POST /v1/sessions/s-1/calls HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"
                + "GET /health HTTP/1.1\r\n\r\n");
        Thread.sleep(30);
        read(channel, "POST /v1/calls?trace=1 HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
        List<String> requests = new ArrayList<>();
        for (Object in; (in = channel.readInbound()) != null; ReferenceCountUtil.release(in)) {
            if (in instanceof HttpRequest request) {
                requests.add(request.method() + " " + request.uri());
            }
        }
        assertThat(requests).containsExactly("POST /v1/sessions/s-1/calls", "GET /health", "POST /v1/calls?trace=1");

        answer(channel, HttpResponseStatus.CONTINUE);
        assertThat(answered).as("an interim answer ends no request").isEmpty();
        answer(channel, HttpResponseStatus.OK);
        answer(channel, HttpResponseStatus.OK);
        assertThat(answered).as("the GET's answer is not timed").hasSize(1);
        answer(channel, HttpResponseStatus.BAD_REQUEST);

        assertThat(answered).hasSize(2);
        assertThat(answered.get(0)).as("the first call waited for the second read").isGreaterThanOrEqualTo(
                TimeUnit.MILLISECONDS.toNanos(30));
        assertThat(answered.get(1)).isPositive().isLessThan(answered.get(0));
        channel.finishAndReleaseAll();
    }

    @Test
    void onlyAPostToAPathEndingInCallsIsACall() {
        assertThat(HttpFraming.CallTimer.isCall(request("POST", "/v1/sessions/s-1/calls"))).isTrue();
        assertThat(HttpFraming.CallTimer.isCall(request("POST", "/v1/calls?x=/y"))).isTrue();
        assertThat(HttpFraming.CallTimer.isCall(request("GET", "/v1/calls"))).isFalse();
        assertThat(HttpFraming.CallTimer.isCall(request("POST", "/v1/calls/r-1/outcome"))).isFalse();
        assertThat(HttpFraming.CallTimer.isCall(request("POST", "/v1/sessions"))).isFalse();
    }

    private static HttpRequest request(String method, String uri) {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), uri);
    }

    private static void read(EmbeddedChannel channel, String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
    }

    private static void answer(EmbeddedChannel channel, HttpResponseStatus status) {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status));
        for (Object out; (out = channel.readOutbound()) != null; ) {
            ReferenceCountUtil.release(out);
        }
    }
}
