package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.metrics.LedgerMetrics;
import io.mcpledger.domain.ErrorCode;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.micronaut.http.server.netty.configuration.NettyHttpServerConfiguration;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * The contract's HTTP framing rules, which Netty's decoder alone does not keep:
 * <ul>
 *   <li>a request with both {@code Content-Length} and {@code Transfer-Encoding} is {@code 400} and its connection is
 *       closed (Netty would drop the length and read the body as chunked: the shape of request smuggling behind a
 *       proxy that reads the length);</li>
 *   <li>a request line over the limit (16 KiB, {@code micronaut.server.netty.max-initial-line-length}) is
 *       {@code 414 uri_too_long}, headers over theirs ({@code max-header-size}) {@code 431 headers_too_large}, and any
 *       other head Netty cannot decode {@code 400 invalid_request}; each closes the connection (Micronaut would answer
 *       {@code 413}, which speaks of the body);</li>
 *   <li>a connection that has not delivered a whole request head within {@code ledger.http.head-timeout} (30 s) of
 *       opening, or of the first byte of its next request, is closed. Idle connections between requests are closed by
 *       Micronaut's {@code micronaut.server.idle-timeout} (60 s).</li>
 * </ul>
 * It replaces Micronaut's {@link HttpServerCodec} by one with the same limits whose headers remember a
 * {@code Content-Length} the decoder dropped, and puts a handler on each side of it. In the ledger (not the edge) a
 * third, after them, times each tool call from the first byte of its request read to the last byte of its answer
 * written ({@link CallTimer}).
 */
@Singleton
final class HttpFraming implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {
    private static final String CODEC = "http-server-codec";
    private static final String HEAD_WATCH = "ledger-head-deadline";
    private static final String CHECK = "ledger-http-framing";
    private static final String TIMER = "ledger-call-timer";
    private static final String DIRECT = "ledger-direct-calls";

    private final NettyHttpServerConfiguration server;
    private final Duration headTimeout;
    /** The ledger's meters, looked up at the first connection (once the service is up); none in the edge. */
    private final BeanProvider<LedgerMetrics> metrics;
    private final BeanProvider<LedgerEngine> ledger;
    private final BeanProvider<Credentials> credentials;
    /** The ledger, not the edge: its calls are timed, and served by {@link DirectCalls}. */
    private final boolean inLedger;
    private volatile LongConsumer callAnswered;
    private volatile DirectCalls.Service direct;

    HttpFraming(NettyHttpServerConfiguration server, @Value("${ledger.http.head-timeout:30s}") Duration headTimeout,
                BeanProvider<LedgerMetrics> metrics, BeanProvider<LedgerEngine> ledger,
                BeanProvider<Credentials> credentials, Environment environment) {
        this.server = server;
        this.headTimeout = headTimeout;
        this.metrics = metrics;
        this.ledger = ledger;
        this.credentials = credentials;
        this.inLedger = !environment.getActiveNames().contains(Environments.EDGE);
    }

    /** What {@link DirectCalls} needs, once the service is running (null before). */
    private DirectCalls.Service direct() {
        DirectCalls.Service found = direct;
        if (found == null) {
            LedgerEngine engine = ledger.find(null).orElse(null);
            Credentials known = credentials.find(null).orElse(null);
            LedgerMetrics meters = metrics.find(null).orElse(null);
            if (engine == null || known == null || meters == null) {
                return null;
            }
            found = new DirectCalls.Service(engine, known, meters);
            direct = found;
        }
        return found;
    }

    /** What hears each tool call's time on the wire: the ledger's meters, or nothing where they are not. */
    private LongConsumer callAnswered() {
        LongConsumer found = callAnswered;
        if (found == null) {
            found = metrics.find(null).<LongConsumer>map(m -> m::callAnswered).orElse(nanos -> { });
            callAnswered = found;
        }
        return found;
    }

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        event.getBean().register(new NettyServerCustomizer() {
            @Override
            public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
                return role == ChannelRole.CONNECTION ? new OnConnection(channel) : this;
            }
        });
        return event.getBean();
    }

    /** Installs the codec and the two handlers on one HTTP/1 connection. */
    private final class OnConnection implements NettyServerCustomizer {
        private final Channel channel;

        OnConnection(Channel channel) {
            this.channel = channel;
        }

        @Override
        public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
            return this;
        }

        @Override
        public void onStreamPipelineBuilt() {
            ChannelPipeline pipeline = channel.pipeline();
            if (pipeline.get(CODEC) == null || pipeline.get(CHECK) != null) {
                return;
            }
            HttpDecoderConfig decoder = new HttpDecoderConfig()
                    .setMaxInitialLineLength(server.getMaxInitialLineLength())
                    .setMaxHeaderSize(server.getMaxHeaderSize())
                    .setMaxChunkSize(server.getMaxChunkSize())
                    .setInitialBufferSize(server.getInitialBufferSize())
                    .setHeadersFactory(RememberedLength.FACTORY);
            pipeline.replace(CODEC, CODEC, new HttpServerCodec(decoder));
            Deadline deadline = new Deadline(headTimeout);
            pipeline.addBefore(CODEC, HEAD_WATCH, deadline);
            pipeline.addAfter(CODEC, CHECK, new Check(deadline));
            if (inLedger) {
                pipeline.addAfter(CHECK, TIMER, new CallTimer(deadline, callAnswered()));
                pipeline.addAfter(TIMER, DIRECT, new DirectCalls(HttpFraming.this::direct));
            }
        }
    }

    /**
     * Request headers that remember a {@code Content-Length} Netty's decoder removed because the request also had
     * {@code Transfer-Encoding}.
     */
    static final class RememberedLength extends DefaultHttpHeaders {
        static final HttpHeadersFactory FACTORY = new HttpHeadersFactory() {
            @Override
            public HttpHeaders newHeaders() {
                return new RememberedLength();
            }

            @Override
            public HttpHeaders newEmptyHeaders() {
                return new RememberedLength();
            }
        };

        private boolean droppedLength;

        @Override
        public HttpHeaders remove(CharSequence name) {
            if (AsciiString.contentEqualsIgnoreCase(HttpHeaderNames.CONTENT_LENGTH, name)
                    && contains(HttpHeaderNames.TRANSFER_ENCODING)) {
                droppedLength = true;
            }
            return super.remove(name);
        }
    }

    /** Raw bytes, before the codec: starts the head deadline when a connection opens or a new request begins. */
    static final class Deadline extends ChannelInboundHandlerAdapter {
        private final long timeoutNanos;
        private ScheduledFuture<?> timer;
        /**
         * No byte of the next request has been read yet: the next byte begins a head (whose deadline a connection's
         * open has started already).
         */
        private boolean awaitingRequest = true;
        /** When the read that brought the first byte of the request being read arrived ({@link System#nanoTime}). */
        private long requestStarted;

        Deadline(Duration timeout) {
            this.timeoutNanos = timeout.toNanos();
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (ctx.channel().isActive()) {
                arm(ctx);
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            arm(ctx);
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
                if (awaitingRequest) {
                    awaitingRequest = false;
                    requestStarted = System.nanoTime();
                    arm(ctx);
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            disarm();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            disarm();
        }

        private void arm(ChannelHandlerContext ctx) {
            if (timer == null) {
                timer = ctx.executor().schedule(() -> ctx.channel().close(), timeoutNanos, TimeUnit.NANOSECONDS);
            }
        }

        /** The head arrived whole. */
        void headRead() {
            disarm();
        }

        /** The request's last content arrived: the next byte begins another head. */
        void requestRead() {
            awaitingRequest = true;
        }

        /**
         * When the first byte of the request whose head was just decoded was read: a request that came in the same
         * read as the one before it (pipelined) arrived with that read.
         */
        long requestStarted() {
            return requestStarted;
        }

        private void disarm() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    /** Decoded messages, after the codec: refuses what the contract refuses before Micronaut sees it. */
    static final class Check extends ChannelInboundHandlerAdapter {
        private final Deadline deadline;
        private boolean refused;

        Check(Deadline deadline) {
            this.deadline = deadline;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (refused) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof HttpRequest request) {
                deadline.headRead();
                Refusal refusal = refusal(request);
                if (refusal != null) {
                    refused = true;
                    ReferenceCountUtil.release(msg);
                    refuse(ctx, refusal);
                    return;
                }
            }
            if (msg instanceof LastHttpContent) {
                deadline.requestRead();
            }
            ctx.fireChannelRead(msg);
        }

        /** What the contract refuses before Micronaut sees the request. */
        private record Refusal(ErrorCode code, String message) {
        }

        /** Why the request is refused, or null. */
        private static Refusal refusal(HttpRequest request) {
            DecoderResult result = request.decoderResult();
            if (result.isFailure()) {
                Throwable cause = result.cause();
                if (cause instanceof TooLongHttpLineException) {
                    return new Refusal(ErrorCode.URI_TOO_LONG, "the request line is longer than 16 KiB");
                }
                if (cause instanceof TooLongHttpHeaderException) {
                    return new Refusal(ErrorCode.HEADERS_TOO_LARGE, "the request's headers are larger than 16 KiB");
                }
                return new Refusal(ErrorCode.INVALID_REQUEST, "the request head is not valid HTTP/1.1: "
                        + cause.getMessage());
            }
            HttpHeaders headers = request.headers();
            boolean both = headers.contains(HttpHeaderNames.TRANSFER_ENCODING)
                    && (headers.contains(HttpHeaderNames.CONTENT_LENGTH)
                        || headers instanceof RememberedLength remembered && remembered.droppedLength);
            return both ? new Refusal(ErrorCode.INVALID_REQUEST,
                    "a request may not carry both Content-Length and Transfer-Encoding; send one") : null;
        }

        private static void refuse(ChannelHandlerContext ctx, Refusal refusal) {
            byte[] body = Replies.bytes(Replies.errorBody(refusal.code().code(), refusal.message(), null));
            DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(refusal.code().httpStatus()), Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Times each tool call ({@code POST} to a path ending in {@code /calls}: a session's or a sessionless call) from
     * the read that brought the first byte of its request to the write of the last byte of its answer, and reports it
     * ({@code ledger_call_latency_seconds}): the time the call spent in the ledger's process, its HTTP decoding, the
     * event loop's queue and the answer's writing included, which the decision's own timer (from the controller on)
     * leaves out. Answers go out in the order of the requests on a connection, so a queue pairs them.
     */
    static final class CallTimer extends ChannelDuplexHandler {
        /** What a request that is not a tool call has in {@link #pending}. */
        private static final long UNTIMED = Long.MIN_VALUE;

        private final Deadline deadline;
        private final LongConsumer answered;
        /** The start of each request read and not yet answered, oldest first; used on the event loop only. */
        private final ArrayDeque<Long> pending = new ArrayDeque<>(2);

        CallTimer(Deadline deadline, LongConsumer answered) {
            this.deadline = deadline;
            this.answered = answered;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                pending.add(isCall(request) ? deadline.requestStarted() : UNTIMED);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean interim = msg instanceof HttpResponse response
                    && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
            if (msg instanceof LastHttpContent && !interim) {
                Long started = pending.poll();
                if (started != null && started != UNTIMED) {
                    ChannelPromise timed = promise.unvoid();
                    timed.addListener(f -> {
                        if (f.isSuccess()) {
                            answered.accept(System.nanoTime() - started);
                        }
                    });
                    ctx.write(msg, timed);
                    return;
                }
            }
            ctx.write(msg, promise);
        }

        static boolean isCall(HttpRequest request) {
            if (!HttpMethod.POST.equals(request.method())) {
                return false;
            }
            String uri = request.uri();
            int query = uri.indexOf('?');
            return (query < 0 ? uri : uri.substring(0, query)).endsWith("/calls");
        }
    }
}
