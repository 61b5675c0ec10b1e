package io.mcpledger.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
import io.mcpledger.app.testing.TestIo;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.receipt.Canonical;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Call admissions over HTTP against a running ledger (or one it starts with {@code --spawn}): many concurrent edges,
 * each on one persistent HTTP/1.1 connection, calling {@code POST /v1/sessions/{id}/calls} on sessions it initialized.
 * Reports admissions per second, latency percentiles, errors by status and code, and the CPU of the generator (and
 * of the ledger when its pid is known). A plain {@code main} on the test classpath, like {@link AdmissionBenchmark}.
 *
 * <p>Closed loop (default): every connection sends its next call as soon as the previous answer is in; an operation
 * counts when it starts and ends inside the measured window. Open loop ({@code --rate R}): call {@code k} is due at
 * {@code t + k/R} and is sent by the next free connection; its latency is measured from the time it was due, not
 * from when it was sent, so a stall in the ledger shows as the queue behind it (no coordinated omission). Open-loop
 * calls count when they were due inside the window. The open-loop warm-up runs closed loop, which warms the JIT
 * fastest, and switches to the schedule ({@code t}) one second before the window, so that neither a backlog built
 * while the ledger was still cold nor the last closed-loop calls reach the measured calls. Latency percentiles are
 * over answered calls (2xx); errors are counted beside them.
 *
 * <p>Run, after {@code mvn -B -q -DskipTests package} (the reactor build, so the jar holds this tree's modules):
 * {@code mvn -B -q -pl ledger-app test-compile exec:exec -Dexec.classpathScope=test
 * "-Dexec.args=-cp %classpath io.mcpledger.app.bench.HttpLoadGenerator --spawn --rate 1000 --timeline"}.
 *
 * <p>Sessions get their grants from the ledger's policy at initialize; with the example policy ({@code ttl: 300}) a
 * run longer than about five minutes sees {@code capability_expired} refusals, which are reported as errors.
 */
@Command(name = "HttpLoadGenerator", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Drive concurrent edges against a ledger over HTTP/1.1 keep-alive and report admissions/s, "
                + "p50/p99/p99.9 latency and errors.")
public final class HttpLoadGenerator implements Callable<Integer> {
    private static final String ARGUMENTS_SHA256 = Sha256.hexOfUtf8("{\"sku\":\"A-1\",\"qty\":3}");
    private static final Pattern DECISION = Pattern.compile("\"decision\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern RECEIPTS = Pattern.compile("\"receipts\"\\s*:\\s*(\\d+)");
    private static final byte[] RECEIPT = "\"receipt\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ADMITTED = "\"decision\":\"admitted\"".getBytes(StandardCharsets.US_ASCII);
    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--url", defaultValue = "http://127.0.0.1:4320", description = "Ledger base URL (default ${DEFAULT-VALUE}).")
    URI url;

    @Option(names = "--state", description = "The ledger's state directory, to read credentials/edge.token.")
    Path state;

    @Option(names = "--token", description = "The edge credential itself (instead of --state).")
    String token;

    @Option(names = "--spawn", description = "Start the packaged jar on a temporary state with the example policy, "
            + "run against it, stop it with SIGTERM and delete the state. Ignores --url, --state and --token.")
    boolean spawn;

    @Option(names = "--jar", description = "The ledger-app jar for --spawn (default: ledger-app/target/ledger-app-*.jar "
            + "found from the working directory upwards).")
    Path jar;

    @Option(names = "--policy", description = "The policy for --spawn (default: docs/examples/pricing-policy.yaml "
            + "found from the working directory upwards).")
    Path policy;

    @Option(names = "--ledger-jvm-option", description = "A JVM option for the ledger --spawn starts, e.g. -XX:+UseZGC "
            + "(repeatable).")
    List<String> ledgerJvmOptions = new ArrayList<>();

    @Option(names = "--ledger-pid", description = "Pid of a ledger not started by --spawn, to report its CPU.")
    Long ledgerPid;

    @Option(names = "--sessions", defaultValue = "1000", description = "Sessions to initialize (default ${DEFAULT-VALUE}).")
    int sessions;

    @Option(names = "--connections", defaultValue = "64",
            description = "Concurrent edges, one keep-alive connection each (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--duration", defaultValue = "20", description = "Measured seconds (default ${DEFAULT-VALUE}).")
    int duration;

    @Option(names = "--warmup", defaultValue = "20", description = "Warm-up seconds before measuring (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--rate", description = "Open loop: calls per second, sent on schedule whatever the answers do.")
    Double rate;

    @Option(names = "--timeline", description = "Also print calls, p50, p99 and max latency for every second of the "
            + "window, to tell steady queueing from stalls.")
    boolean timeline;

    @Option(names = "--target-p99-ms", defaultValue = "5",
            description = "Open loop: say whether p99 is at most this (default ${DEFAULT-VALUE} ms).")
    double targetP99Millis;

    /** Makes request ids, client tokens and edge incarnations unique to this run. */
    private final String run = randomHex(4);
    private String hostHeader;

    public static void main(String[] args) {
        System.exit(new CommandLine(new HttpLoadGenerator()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (sessions < 1 || connections < 1 || duration < 1 || warmup < 0 || (rate != null && rate <= 0)) {
            System.err.println("--sessions, --connections and --duration must be at least 1, --warmup at least 0, "
                    + "--rate above 0");
            return 2;
        }
        SpawnedLedger spawned = null;
        try {
            if (spawn) {
                spawned = SpawnedLedger.start(jar != null ? jar : findUpwards("ledger-app/target", "ledger-app-"),
                        policy != null ? policy : findUpwards("docs/examples", "pricing-policy.yaml"), ledgerJvmOptions);
                url = spawned.url;
                token = spawned.edgeToken;
                ledgerPid = spawned.process.pid();
                state = spawned.work.resolve("state");
            } else if (token == null) {
                if (state == null) {
                    System.err.println("give --state DIR (to read credentials/edge.token), --token or --spawn");
                    return 2;
                }
                token = Files.readString(state.resolve("credentials/edge.token")).strip();
            }
            return run();
        } finally {
            if (spawned != null) {
                spawned.close();
            }
        }
    }

    private int run() throws Exception {
        String host = url.getHost();
        int port = url.getPort() < 0 ? 80 : url.getPort();
        hostHeader = host + ":" + port;
        System.out.printf(Locale.ROOT, "java %s, %d processors; load average at the start: %s%n",
                System.getProperty("java.version"), CORES, loadAverage());
        System.out.printf(Locale.ROOT, "ledger %s%s; %s, %d connections, %d sessions, warm-up %d s, measured %d s%n",
                url, spawn ? " (spawned)" : "", mode(), connections, sessions, warmup, duration);

        long receiptsBefore = healthReceipts(host, port);
        Edge[] edges = new Edge[connections];
        for (int c = 0; c < connections; c++) {
            edges[c] = new Edge(c, new Http1Connection(host, port));
        }
        String[] sessionIds = new String[sessions];
        String[] clientTokens = new String[sessions];
        long t0 = System.nanoTime();
        runOnEdges(edges, edge -> {
            for (int i = edge.index; i < sessions; i += connections) {
                String clientToken = Sha256.hexOfUtf8("load-client-" + run + "-" + i);
                Response answer = edge.connection.exchange(request("POST", "/v1/sessions", clientToken,
                        initializeBody(edge.index)));
                if (answer.status != 201) {
                    throw new IllegalStateException("initialize answered " + answer.status + ": " + answer.text());
                }
                sessionIds[i] = Canonical.parse(answer.text()).path("session").path("id").asText();
                clientTokens[i] = clientToken;
            }
        });
        System.out.printf(Locale.ROOT, "initialized %,d sessions in %.1f s%n", sessions, (System.nanoTime() - t0) / 1e9);

        Window window = new Window(System.nanoTime() + 100_000_000L, warmup, duration);
        AtomicLong calls = new AtomicLong();
        AtomicLong scheduled = new AtomicLong();
        Thread[] threads = new Thread[connections];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (Edge edge : edges) {
            threads[edge.index] = new Thread(() -> {
                try {
                    drive(edge, window, calls, scheduled, sessionIds, clientTokens);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "edge-" + edge.index);
            threads[edge.index].start();
        }
        sleepUntil(window.measureStart);
        Cpu before = Cpu.now(ledgerPid);
        sleepUntil(window.end);
        Cpu after = Cpu.now(ledgerPid);
        for (Thread thread : threads) {
            thread.join();
        }
        for (Edge edge : edges) {
            edge.connection.close();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an edge failed: " + failure.get(), failure.get());
        }
        report(edges, before, after);
        if (timeline) {
            timeline(edges);
        }
        checkReceipts(host, port, receiptsBefore, edges);
        return 0;
    }

    /**
     * One edge's loop: closed (next call when the answer is in) or open (each call at its due time). {@code calls}
     * numbers every call (request id, session); {@code scheduled} numbers the open-loop due times.
     */
    private void drive(Edge edge, Window window, AtomicLong calls, AtomicLong scheduled, String[] sessionIds,
                       String[] clientTokens) throws InterruptedException {
        double period = rate == null ? 0 : 1e9 / rate;
        long scheduleStart = Math.max(window.start, window.measureStart - TimeUnit.SECONDS.toNanos(1));
        while (true) {
            long due = System.nanoTime();
            if (rate != null && due >= scheduleStart) {
                due = scheduleStart + (long) (scheduled.getAndIncrement() * period);
                long wait = due - System.nanoTime();
                if (wait > 0 && due < window.end) {
                    LockSupport.parkNanos(wait);
                }
            }
            if (due >= window.end) {
                return;
            }
            long k = calls.getAndIncrement();
            int s = (int) (k % sessions);
            byte[] call = request("POST", "/v1/sessions/" + sessionIds[s] + "/calls",
                    clientTokens[s], callBody(k));
            String outcome;
            Response answer = null;
            try {
                answer = edge.connection.exchange(call);
                outcome = classify(answer);
            } catch (SocketTimeoutException e) {
                outcome = "timeout after " + SOCKET_TIMEOUT.toSeconds() + " s";
            } catch (IOException e) {
                outcome = "I/O: " + e.getMessage();
                Thread.sleep(10); // The ledger is gone or restarting: do not spin on reconnects.
            }
            long done = System.nanoTime();
            if (answer != null && (answer.status / 100 == 2 || indexOf(answer.body, RECEIPT) >= 0)) {
                edge.answeredWithReceipt++;
            }
            boolean measured = rate != null ? due >= window.measureStart
                    : due >= window.measureStart && done <= window.end;
            if (!measured) {
                if (outcome != null) {
                    edge.errorsOutside++;
                }
                continue;
            }
            if (outcome == null) {
                edge.admitted++;
            } else {
                edge.errors.merge(outcome, 1L, Long::sum);
            }
            if (answer != null && answer.status / 100 == 2) {
                edge.record(due - window.measureStart, done - due);
            }
        }
    }

    /** Null for an admission; otherwise what went wrong, as status and error code or decision and reason. */
    private static String classify(Response answer) {
        if (answer.status == 200 && indexOf(answer.body, ADMITTED) >= 0) {
            return null;
        }
        String text = answer.text();
        Matcher decision = DECISION.matcher(text);
        Matcher code = CODE.matcher(text);
        String reason = code.find() ? code.group(1) : "no error code";
        if (answer.status == 200 && decision.find()) {
            return "200 " + decision.group(1) + " " + reason;
        }
        return answer.status + " " + reason;
    }

    private void report(Edge[] edges, Cpu before, Cpu after) {
        long admitted = 0;
        long outside = 0;
        int answered = 0;
        Map<String, Long> errors = new TreeMap<>();
        for (Edge edge : edges) {
            admitted += edge.admitted;
            outside += edge.errorsOutside;
            answered += edge.count;
            edge.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
        }
        long[] all = new long[answered];
        int at = 0;
        for (Edge edge : edges) {
            System.arraycopy(edge.latencies, 0, all, at, edge.count);
            at += edge.count;
        }
        Arrays.sort(all);
        double seconds = (after.wallNanos - before.wallNanos) / 1e9;
        double rateAdmitted = admitted / seconds;
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        double generatorCores = (after.generatorNanos - before.generatorNanos) / 1e9 / seconds;
        double ledgerCores = before.ledgerNanos < 0 || after.ledgerNanos < 0 ? Double.NaN
                : (after.ledgerNanos - before.ledgerNanos) / 1e9 / seconds;
        double machineCores = Double.isNaN(before.machineBusyShare(after)) ? Double.NaN
                : before.machineBusyShare(after) * CORES;

        System.out.println();
        System.out.printf(Locale.ROOT, "%s: %,.0f admissions/s (%,d admitted in %.1f s)%s%n", mode(), rateAdmitted,
                admitted, seconds, rate == null ? ""
                        : String.format(Locale.ROOT, ", offered %,.0f/s", rate));
        System.out.printf(Locale.ROOT, "latency of %,d answered calls: p50 %s  p99 %s  p99.9 %s  max %s%n", all.length,
                millis(percentile(all, 0.50)), millis(percentile(all, 0.99)), millis(percentile(all, 0.999)),
                millis(all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6));
        if (rate != null) {
            double p99 = percentile(all, 0.99);
            System.out.printf(Locale.ROOT, "p99 %s against a target of at most %s ms at %,.0f/s: %s%n", millis(p99),
                    trim(targetP99Millis), rate, errorCount == 0 && p99 <= targetP99Millis ? "met" : "missed");
        }
        System.out.println("errors in the window: " + (errors.isEmpty() ? "none" : errors)
                + (outside == 0 ? "" : "; outside it (warm-up, tail): " + outside));
        System.out.printf(Locale.ROOT, "CPU (of %d cores): generator %.0f%% (%s us per call), ledger %s, "
                        + "whole machine %s; load average at the end: %s%n",
                CORES, generatorCores * 100 / CORES, perCall(after.generatorNanos - before.generatorNanos, all.length),
                Double.isNaN(ledgerCores) ? "unknown (give --ledger-pid or --spawn)"
                        : String.format(Locale.ROOT, "%.0f%% (%s us per call)", ledgerCores * 100 / CORES,
                                perCall(after.ledgerNanos - before.ledgerNanos, all.length)),
                Double.isNaN(machineCores) ? "unknown" : String.format(Locale.ROOT, "%.0f%%", machineCores * 100 / CORES),
                loadAverage());
        System.out.println();
        System.out.println("| mode | connections | sessions | admissions/s | p50 | p99 | p99.9 | max | errors "
                + "| generator CPU | ledger CPU |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        System.out.printf(Locale.ROOT, "| %s | %d | %,d | %,.0f | %s | %s | %s | %s | %,d | %.0f%% | %s |%n",
                mode(), connections, sessions, rateAdmitted, millis(percentile(all, 0.50)),
                millis(percentile(all, 0.99)), millis(percentile(all, 0.999)),
                millis(all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6), errorCount,
                generatorCores * 100 / CORES,
                Double.isNaN(ledgerCores) ? "" : String.format(Locale.ROOT, "%.0f%%", ledgerCores * 100 / CORES));
    }

    private void timeline(Edge[] edges) {
        List<List<Long>> seconds = new ArrayList<>();
        for (int i = 0; i < duration; i++) {
            seconds.add(new ArrayList<>());
        }
        for (Edge edge : edges) {
            for (int i = 0; i < edge.count; i++) {
                int second = (int) Math.min(duration - 1, Math.max(0, edge.dues[i] / 1_000_000_000L));
                seconds.get(second).add(edge.latencies[i]);
            }
        }
        System.out.println();
        System.out.println("second  calls      p50      p99      max");
        for (int i = 0; i < duration; i++) {
            long[] sorted = seconds.get(i).stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "%6d %6d %8s %8s %8s%n", i, sorted.length, millis(percentile(sorted, 0.5)),
                    millis(percentile(sorted, 0.99)), millis(sorted.length == 0 ? Double.NaN
                            : sorted[sorted.length - 1] / 1e6));
        }
    }

    /** Every answer with a receipt is one more receipt in the ledger; {@code /health} counts them. */
    private void checkReceipts(String host, int port, long before, Edge[] edges) throws Exception {
        long answered = sessions;
        for (Edge edge : edges) {
            answered += edge.answeredWithReceipt;
        }
        long after = healthReceipts(host, port);
        System.out.printf(Locale.ROOT, "%ncheck: /health counted %,d receipts before and %,d after (+%,d); "
                + "answers with a receipt: %,d (%,d initialize + %,d calls)%s%n", before, after, after - before,
                answered, sessions, answered - sessions,
                after - before == answered ? "" : " -- MISMATCH (or another client wrote to this ledger)");
        if (state != null && Files.exists(state.resolve("ledger.mv.db"))) {
            long bytes = Files.size(state.resolve("ledger.mv.db"));
            System.out.printf(Locale.ROOT, "disk: ledger.mv.db is %,d bytes, %,.0f bytes per receipt (%,d receipts)%n",
                    bytes, (double) bytes / Math.max(1, after), after);
        }
    }

    private long healthReceipts(String host, int port) throws IOException {
        try (Http1Connection connection = new Http1Connection(host, port)) {
            Response health = connection.exchange(("GET /health HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            Matcher m = RECEIPTS.matcher(health.text());
            if (health.status != 200 || !m.find()) {
                throw new IllegalStateException("GET /health answered " + health.status + ": " + health.text());
            }
            return Long.parseLong(m.group(1));
        }
    }

    private String mode() {
        return rate == null ? "closed loop" : String.format(Locale.ROOT, "open loop at %s/s", trim(rate));
    }

    private byte[] request(String method, String path, String clientToken, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\n"
                + "Host: " + hostHeader + "\r\n"
                + "Authorization: Bearer " + token + "\r\n"
                + "Client-Token-Sha256: " + clientToken + "\r\n"
                + "Content-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] bytes = Arrays.copyOf(headBytes, headBytes.length + body.length);
        System.arraycopy(body, 0, bytes, headBytes.length, body.length);
        return bytes;
    }

    private String initializeBody(int edge) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", "alice");
        body.put("serverId", "pricing");
        body.put("protocolVersion", "2025-06-18");
        ObjectNode edgeNode = body.putObject("edge");
        edgeNode.put("id", "load-edge-" + edge);
        edgeNode.put("incarnation", run);
        return body.toString();
    }

    private String callBody(long k) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("requestId", "load-" + run + "-" + k);
        body.put("server", "pricing");
        body.put("tool", "quote");
        body.put("operation", "invoke");
        body.put("argumentsSha256", ARGUMENTS_SHA256);
        return body.toString();
    }

    // ---------------------------------------------------------------- edges and their connections

    /** One simulated edge: its connection and what it saw. Only its own thread touches it until the join. */
    private static final class Edge {
        final int index;
        final Http1Connection connection;
        final Map<String, Long> errors = new ConcurrentHashMap<>();
        long[] latencies = new long[1 << 12];
        /** When each call in {@link #latencies} was due (closed loop: sent), in nanos from the window's start. */
        long[] dues = new long[1 << 12];
        int count;
        long admitted;
        long errorsOutside;
        long answeredWithReceipt;

        Edge(int index, Http1Connection connection) {
            this.index = index;
            this.connection = connection;
        }

        void record(long dueInWindow, long nanos) {
            if (count == latencies.length) {
                latencies = Arrays.copyOf(latencies, latencies.length * 2);
                dues = Arrays.copyOf(dues, dues.length * 2);
            }
            dues[count] = dueInWindow;
            latencies[count++] = nanos;
        }
    }

    @FunctionalInterface
    private interface EdgeTask {
        void run(Edge edge) throws Exception;
    }

    private static void runOnEdges(Edge[] edges, EdgeTask task) throws Exception {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (Edge edge : edges) {
            Thread t = new Thread(() -> {
                try {
                    task.run(edge);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "setup-" + edge.index);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** An answer read by {@link Http1Connection}; {@code LogBenchmark} times proofs with the same client. */
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * One blocking, keep-alive HTTP/1.1 connection: write a request, read the status line, the headers and a
     * Content-Length (or chunked) body. Written by hand because the generator shares two cores with the ledger it
     * measures: {@code java.net.http.HttpClient} hands every exchange between its selector thread and executor
     * threads (several context switches and allocations per call) and pools connections as it sees fit, while
     * this is one thread per edge, one socket per thread, and a few hundred nanoseconds of parsing per answer.
     * It understands only what the ledger answers; it is not a general client.
     */
    static final class Http1Connection implements Closeable {
        private final String host;
        private final int port;
        private Socket socket;
        private InputStream in;
        private OutputStream out;
        private final byte[] buffer = new byte[16 * 1024];
        private int position;
        private int limit;

        Http1Connection(String host, int port) {
            this.host = host;
            this.port = port;
        }

        Response exchange(byte[] request) throws IOException {
            if (socket == null) {
                connect();
            }
            try {
                out.write(request);
                out.flush();
                return readResponse();
            } catch (IOException e) {
                close();
                throw e;
            }
        }

        private void connect() throws IOException {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            s.connect(new InetSocketAddress(host, port), 5_000);
            s.setSoTimeout((int) SOCKET_TIMEOUT.toMillis());
            socket = s;
            in = s.getInputStream();
            out = s.getOutputStream();
            position = 0;
            limit = 0;
        }

        private Response readResponse() throws IOException {
            String statusLine = readLine();
            if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
                throw new IOException("not an HTTP/1.x status line: '" + statusLine + "'");
            }
            int status = Integer.parseInt(statusLine.substring(9, 12));
            int contentLength = -1;
            boolean chunked = false;
            boolean closeAfter = statusLine.startsWith("HTTP/1.0");
            String line;
            while (!(line = readLine()).isEmpty()) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = line.substring(0, colon).trim();
                String value = line.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("Content-Length")) {
                    contentLength = Integer.parseInt(value);
                } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                    chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                } else if (name.equalsIgnoreCase("Connection")) {
                    closeAfter = value.equalsIgnoreCase("close");
                }
            }
            byte[] body;
            if (chunked) {
                body = readChunked();
            } else if (contentLength >= 0) {
                body = readExactly(contentLength);
            } else {
                throw new IOException("answer " + status + " has neither Content-Length nor chunked encoding");
            }
            if (closeAfter) {
                close();
            }
            return new Response(status, body);
        }

        private byte[] readChunked() throws IOException {
            byte[] body = new byte[0];
            while (true) {
                String sizeLine = readLine();
                int semicolon = sizeLine.indexOf(';');
                int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
                if (size == 0) {
                    while (!readLine().isEmpty()) {
                        // Trailers: none expected, skipped.
                    }
                    return body;
                }
                byte[] chunk = readExactly(size);
                readLine();
                body = Arrays.copyOf(body, body.length + size);
                System.arraycopy(chunk, 0, body, body.length - size, size);
            }
        }

        private String readLine() throws IOException {
            StringBuilder line = new StringBuilder(64);
            while (true) {
                if (position == limit) {
                    fill();
                }
                byte b = buffer[position++];
                if (b == '\n') {
                    int end = line.length();
                    if (end > 0 && line.charAt(end - 1) == '\r') {
                        line.setLength(end - 1);
                    }
                    return line.toString();
                }
                line.append((char) (b & 0xff));
            }
        }

        private byte[] readExactly(int n) throws IOException {
            byte[] bytes = new byte[n];
            int copied = 0;
            while (copied < n) {
                if (position == limit) {
                    fill();
                }
                int take = Math.min(n - copied, limit - position);
                System.arraycopy(buffer, position, bytes, copied, take);
                position += take;
                copied += take;
            }
            return bytes;
        }

        private void fill() throws IOException {
            int read = in.read(buffer, 0, buffer.length);
            if (read < 0) {
                throw new EOFException("the ledger closed the connection");
            }
            position = 0;
            limit = read;
        }

        @Override
        public void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // Closing a broken socket: nothing left to do.
                }
                socket = null;
            }
        }
    }

    // ---------------------------------------------------------------- the spawned ledger

    /** The packaged jar on a temporary state, as {@code serve} starts it; SIGTERM and the state deleted on close. */
    private static final class SpawnedLedger implements Closeable {
        final Process process;
        final URI url;
        final String edgeToken;
        final Path work;

        private SpawnedLedger(Process process, URI url, String edgeToken, Path work) {
            this.process = process;
            this.url = url;
            this.edgeToken = edgeToken;
            this.work = work;
        }

        static SpawnedLedger start(Path jar, Path policy, List<String> jvmOptions) throws Exception {
            Path work = Files.createTempDirectory("ledger-load");
            Path stateDir = work.resolve("state");
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.addAll(List.of("-jar", jar.toString(), "serve", "--state", stateDir.toString(),
                    "--listen", "127.0.0.1:" + port, "--policy", policy.toString()));
            System.out.println("spawning: " + String.join(" ", command));
            Process process = new ProcessBuilder(command).directory(work.toFile()).start();
            List<String> stdout = new CopyOnWriteArrayList<>();
            List<String> stderr = new CopyOnWriteArrayList<>();
            TestIo.collectLines(process.getInputStream(), stdout);
            TestIo.collectLines(process.getErrorStream(), stderr);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (stdout.stream().noneMatch(l -> l.startsWith("Ready: "))) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("the ledger did not start; stdout: " + stdout + "; stderr: " + stderr);
                }
                Thread.sleep(50);
            }
            String token = Files.readString(stateDir.resolve("credentials/edge.token")).strip();
            return new SpawnedLedger(process, URI.create("http://127.0.0.1:" + port), token, work);
        }

        @Override
        public void close() throws IOException {
            process.toHandle().destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    System.err.println("the spawned ledger did not stop within 30 s of SIGTERM; killing it");
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            TestIo.deleteTree(work);
        }
    }

    /** The first {@code dir/prefix*} file (not a shade plugin's {@code original-} jar) from the working directory up. */
    private static Path findUpwards(String dir, String prefix) throws IOException {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path candidate = at.resolve(dir);
            if (!Files.isDirectory(candidate)) {
                continue;
            }
            try (var files = Files.list(candidate)) {
                var found = files.map(f -> f.getFileName().toString())
                        .filter(name -> name.startsWith(prefix) && !name.endsWith("-sources.jar")
                                && !name.endsWith("-tests.jar"))
                        .sorted().findFirst();
                if (found.isPresent()) {
                    return candidate.resolve(found.get());
                }
            }
        }
        throw new IllegalStateException("no " + dir + "/" + prefix + "* above " + Path.of("").toAbsolutePath()
                + "; build with 'mvn -B -q -DskipTests package' or pass --jar and --policy");
    }

    // ---------------------------------------------------------------- measuring

    /** Warm-up from {@code start}, then the measured part from {@code measureStart} to {@code end} (nanoTime). */
    private record Window(long start, long measureStart, long end) {
        Window(long start, int warmupSeconds, int measureSeconds) {
            this(start, start + TimeUnit.SECONDS.toNanos(warmupSeconds),
                    start + TimeUnit.SECONDS.toNanos(warmupSeconds + (long) measureSeconds));
        }
    }

    /** CPU so far: this process, the ledger's (or -1), and the machine's busy and total jiffies from /proc/stat. */
    private record Cpu(long wallNanos, long generatorNanos, long ledgerNanos, long machineBusy, long machineTotal) {
        static Cpu now(Long ledgerPid) {
            long ledger = ledgerPid == null ? -1 : ProcessHandle.of(ledgerPid)
                    .flatMap(p -> p.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
            long busy = -1;
            long total = -1;
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                total = 0;
                for (int i = 1; i < f.length && i <= 8; i++) {
                    total += Long.parseLong(f[i]);
                }
                busy = total - Long.parseLong(f[4]) - Long.parseLong(f[5]);
            } catch (IOException | RuntimeException e) {
                // Not Linux: the machine's share reads unknown.
            }
            return new Cpu(System.nanoTime(), OS.getProcessCpuTime(), ledger, busy, total);
        }

        double machineBusyShare(Cpu later) {
            return machineTotal < 0 || later.machineTotal <= machineTotal ? Double.NaN
                    : (double) (later.machineBusy - machineBusy) / (later.machineTotal - machineTotal);
        }
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    private static String millis(double ms) {
        return Double.isNaN(ms) ? "n/a" : ms >= 100 ? String.format(Locale.ROOT, "%.0f ms", ms)
                : String.format(Locale.ROOT, "%.2f ms", ms);
    }

    private static String perCall(long nanos, long calls) {
        return calls == 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", nanos / 1e3 / calls);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
