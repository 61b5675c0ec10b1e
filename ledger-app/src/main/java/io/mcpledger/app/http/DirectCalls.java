package io.mcpledger.app.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.metrics.LedgerMetrics;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.session.Answer;
import io.mcpledger.domain.session.RequestCall;
import io.mcpledger.domain.session.RequestClientCall;
import io.micronaut.http.HttpResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Serves the request every tool call makes, {@code POST /v1/sessions/{id}/calls} in a session or {@code POST /v1/calls}
 * without one (MCP 2026-07-28), in the connection's pipeline, ahead of Micronaut: at saturation Micronaut's request
 * path (routing, filters, binding, the futures between them) was two fifths of the event loops' time in Java, some
 * 20 us per admission (docs/benchmarks.md, section 8). It takes only a call that Micronaut would hand to {@link
 * SessionController#call} or {@link ClientController#call} and answer there, and answers it with the same code
 * ({@link SessionController#callCommand}, {@link ClientController#callCommand}, {@link
 * SessionController#callDecision}, {@link Failures#toResponse}):
 * <ul>
 *   <li>HTTP/1.1, kept alive, without {@code Expect}, a session id (if any) of unreserved characters, no query, a body
 *       of at most {@link #MAX_BODY} bytes;</li>
 *   <li>the ledger started, and a bearer credential whose role may call an edge endpoint ({@link Access});</li>
 *   <li>a header and a body that {@link SessionController#callCommand} (or {@link ClientController#callCommand})
 *       accepts;</li>
 *   <li>no answer of Micronaut's pending on the connection, so that answers keep the order of their requests.</li>
 * </ul>
 * Anything else goes on to Micronaut as it came (a call whose parts were read here is passed on whole), which answers
 * it as before: a refusal of the credential, of the header or of the body, a request while starting. Requests that
 * arrive while a call of this handler waits for its decision wait here, and go on in order once it is answered; while
 * any waits here, the connection is not read further ({@link #read}).
 */
final class DirectCalls extends ChannelDuplexHandler {
    /** Larger bodies are not calls any edge sends; Micronaut reads them, and refuses what is over its own limit. */
    static final int MAX_BODY = 64 * 1024;
    private static final String PREFIX = "/v1/sessions/";
    private static final String SUFFIX = "/calls";
    /** The sessionless call's target. */
    private static final String CLIENT_CALLS = "/v1/calls";

    /** What a call needs from the service, found once the service is running. */
    record Service(LedgerEngine ledger, Credentials credentials, LedgerMetrics metrics) {
    }

    private final Supplier<Service> service;
    /** The head of the call being read here, or null. */
    private HttpRequest head;
    private ByteBuf body;
    /** A call of this handler is decided but not yet answered. */
    private boolean answering;
    /** Requests passed on to Micronaut whose answers are not all written. */
    private int passedOn;
    /** What arrived while a call of this handler was being answered, in order. */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /** The rest of a request being passed on goes on too. */
    private boolean passingOn;
    /** A read of the connection was asked for while requests were held here; it is made once none is. */
    private boolean readWanted;

    DirectCalls(Supplier<Service> service) {
        this.service = service;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (answering || !held.isEmpty()) {
            held.add(msg);
            return;
        }
        read(ctx, msg);
    }

    private void read(ChannelHandlerContext ctx, Object msg) {
        if (head != null) {
            if (msg instanceof HttpContent content) {
                append(ctx, content);
            } else {
                // Not from the codec, which ends each request with a LastHttpContent; whoever sent it gets it as it is.
                passOnHead(ctx);
                ctx.fireChannelRead(msg);
            }
            return;
        }
        if (passingOn) {
            passingOn = !(msg instanceof LastHttpContent);
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            if (passedOn == 0 && !(msg instanceof HttpContent) && eligible(request)) {
                head = request;
                body = ctx.alloc().heapBuffer(1024);
                return;
            }
            passedOn++;
            passingOn = !(msg instanceof LastHttpContent);
        }
        ctx.fireChannelRead(msg);
    }

    private void append(ChannelHandlerContext ctx, HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (body.readableBytes() + content.content().readableBytes() > MAX_BODY
                || last && !((LastHttpContent) content).trailingHeaders().isEmpty()) {
            passOnHead(ctx);
            passingOn = !last;
            ctx.fireChannelRead(content);
            return;
        }
        body.writeBytes(content.content());
        content.release();
        if (last) {
            serve(ctx);
        }
    }

    /** Passes the head and what was read of the body on to Micronaut; the rest of the request follows. */
    private void passOnHead(ChannelHandlerContext ctx) {
        HttpRequest request = head;
        ByteBuf read = body;
        head = null;
        body = null;
        passOn(ctx, request, new DefaultHttpContent(read));
    }

    /** Passes {@code request} and {@code content}, its body read so far, on to Micronaut, which then owes an answer. */
    private void passOn(ChannelHandlerContext ctx, HttpRequest request, HttpContent content) {
        passedOn++;
        ctx.fireChannelRead(request);
        ctx.fireChannelRead(content);
    }

    /** The call was read whole; passed on with its body if the controller would refuse it, otherwise sent. */
    private void serve(ChannelHandlerContext ctx) {
        HttpRequest request = head;
        ByteBuf read = body;
        head = null;
        body = null;
        long arrived = System.nanoTime();
        Service s = service.get();
        byte[] bytes = new byte[read.readableBytes()];
        read.getBytes(read.readerIndex(), bytes);
        String clientToken = request.headers().get(SessionController.CLIENT_TOKEN);
        Object command;
        String requestId;
        try {
            if (request.uri().equals(CLIENT_CALLS)) {
                RequestClientCall call = ClientController.callCommand(s.ledger(), clientToken, bytes);
                command = call;
                requestId = call.requestId();
            } else {
                RequestCall call = SessionController.callCommand(s.ledger(), sessionId(request.uri()), clientToken,
                        bytes);
                command = call;
                requestId = call.requestId();
            }
        } catch (RuntimeException refused) {
            // Micronaut's controller refuses it again, with the contract's answer.
            passOn(ctx, request, new DefaultLastHttpContent(read));
            return;
        }
        read.release();
        answering = true;
        CompletableFuture<Answer> answer;
        try {
            answer = s.ledger().commands().send(command);
        } catch (RuntimeException failure) {
            answer = CompletableFuture.failedFuture(failure);
        }
        answer.whenCompleteAsync((a, failure) -> answer(ctx, a, failure, requestId, arrived, s), ctx.executor());
    }

    private void answer(ChannelHandlerContext ctx, Answer a, Throwable failure, String requestId, long arrived,
                        Service s) {
        ObjectNode decided = failure == null ? SessionController.callDecision(a, requestId, arrived, s.metrics())
                : null;
        ctx.writeAndFlush(decided != null ? ok(Replies.bytes(decided))
                : netty(failure != null ? Failures.toResponse(failure) : SessionController.errorAnswer(a)));
        answering = false;
        if (!held.isEmpty()) {
            while (!answering && !held.isEmpty()) {
                read(ctx, held.poll());
            }
            // What was held was read in an earlier read; Micronaut handles what it was given at the end of a read.
            ctx.fireChannelReadComplete();
        }
        if (readWanted && held.isEmpty()) {
            readWanted = false;
            ctx.read();
        }
    }

    /**
     * Reads the connection further only while nothing is held here: a client that pipelines requests behind a call
     * waiting for its decision has them read one read at a time (at most what one read brings, as Micronaut reads
     * them), not without end into {@link #held}. Micronaut asks for each read, the channel's auto-read being off.
     */
    @Override
    public void read(ChannelHandlerContext ctx) {
        if (!held.isEmpty()) {
            readWanted = true;
            return;
        }
        ctx.read();
    }

    /** A decision's answer, written as {@link Replies#ok} writes it, without Micronaut's response between. */
    private static FullHttpResponse ok(byte[] json) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(json));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return framed(response);
    }

    /** Micronaut's response as Netty's: its status, headers and body. */
    private static FullHttpResponse netty(HttpResponse<byte[]> reply) {
        byte[] bytes = reply.getBody().orElse(new byte[0]);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(reply.code()), Unpooled.wrappedBuffer(bytes));
        reply.getHeaders().forEach((name, values) -> response.headers().add(name, values));
        return framed(response);
    }

    /** The body's length, and the date as Micronaut writes it on its answers ({@code micronaut.server.date-header}). */
    private static FullHttpResponse framed(FullHttpResponse response) {
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.DATE, DateFormatter.format(new Date()));
        return response;
    }

    /** Whether the handler may take this request whole (see the class comment). */
    private boolean eligible(HttpRequest request) {
        if (request.method() != HttpMethod.POST || !request.decoderResult().isSuccess()
                || request.protocolVersion() != HttpVersion.HTTP_1_1 || !HttpUtil.isKeepAlive(request)
                || request.headers().contains(HttpHeaderNames.EXPECT) || !callTarget(request.uri())) {
            return false;
        }
        String length = request.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (length != null && !withinBody(length)) {
            return false;
        }
        Service s = service.get();
        if (s == null || !s.ledger().start().ready()) {
            return false;
        }
        String credential = AuthFilter.bearer(request.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (credential == null) {
            return false;
        }
        Role role = s.credentials().roleOf(credential);
        return role != null && Access.allows(role, io.micronaut.http.HttpMethod.POST, true);
    }

    /** Whether a {@code Content-Length} is a number of at most {@link #MAX_BODY}. */
    private static boolean withinBody(String length) {
        if (length.isEmpty() || length.length() > 6) {
            return false;
        }
        for (int i = 0; i < length.length(); i++) {
            if (length.charAt(i) < '0' || length.charAt(i) > '9') {
                return false;
            }
        }
        return Integer.parseInt(length) <= MAX_BODY;
    }

    /** Whether {@code target} is a call's: {@code /v1/calls}, or a session's ({@link #sessionId}). */
    static boolean callTarget(String target) {
        return target.equals(CLIENT_CALLS) || sessionId(target) != null;
    }

    /**
     * The session id of a call's request-target {@code /v1/sessions/{id}/calls}, or null for any other target, for an
     * id with a character that is not unreserved (RFC 3986), which Micronaut's path decoding would change, and for the
     * dot segments "." and "..", which a path's normalization would.
     */
    static String sessionId(String target) {
        if (!target.startsWith(PREFIX) || !target.endsWith(SUFFIX)
                || target.length() <= PREFIX.length() + SUFFIX.length()) {
            return null;
        }
        for (int i = PREFIX.length(); i < target.length() - SUFFIX.length(); i++) {
            char c = target.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~')) {
                return null;
            }
        }
        String id = target.substring(PREFIX.length(), target.length() - SUFFIX.length());
        return id.equals(".") || id.equals("..") ? null : id;
    }

    /** Counts Micronaut's answers as they are written; an interim (1xx) answer is not one. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent && passedOn > 0 && !interim(msg)) {
            passedOn--;
        }
        ctx.write(msg, promise);
    }

    private static boolean interim(Object msg) {
        return msg instanceof io.netty.handler.codec.http.HttpResponse response
                && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    private void release() {
        if (body != null) {
            body.release();
            body = null;
        }
        head = null;
        while (!held.isEmpty()) {
            ReferenceCountUtil.release(held.poll());
        }
    }
}
