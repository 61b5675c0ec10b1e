package io.mcpledger.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Call admissions over HTTP against a running ledger (or one it starts with {@code --spawn}): many concurrent edges,
 * each on one persistent HTTP/1.1 connection, calling {@code POST /v1/sessions/{id}/calls} on sessions it initialized
 * (or, with {@code --sessionless}, {@code POST /v1/calls} as many clients).
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
 * over answered calls (2xx); errors are counted beside them. With the auditor's credential at hand (a spawned ledger,
 * or {@code --state}) it also prints the ledger's own view of the window from its {@code /metrics} ({@link
 * LedgerMeters}): decisions, group commits and forced writes over 1 to 20 ms, and the bytes allocated per receipt.
 *
 * <p>Run, after {@code mvn -B -q -DskipTests package} (the reactor build, so the jar holds this tree's modules):
 * {@code mvn -B -q -pl ledger-app test-compile exec:exec -Dexec.classpathScope=test
 * "-Dexec.args=-cp %classpath io.mcpledger.app.bench.HttpLoadGenerator --spawn --rate 1000 --timeline"}.
 *
 * <p>Sessions get their grants from the ledger's policy at initialize; with the example policy ({@code ttl: 300}) a
 * run longer than about five minutes sees {@code capability_expired} refusals, which are reported as errors, unless
 * {@code --resume-every} resumes the sessions in time. {@code --outcomes F} sends {@code POST .../outcome} for the
 * fraction {@code F} of admitted calls right after their admission, on the same connection, as an edge does once the
 * tool answered ({@code {"status":"ok","resultSha256":...}}; default 0 here, 1 in a soak).
 *
 * <p><b>Soak</b> ({@code --soak-minutes N} and/or {@code --soak-receipts N}): sustained admissions at {@code --rate}
 * (default 1,000/s), open loop as above from the first second (no warm-up: the first minutes show the JIT warming),
 * each admitted call followed by its outcome ({@code --outcomes}, default 1), for {@code N} minutes or until
 * {@code /health} counts {@code N} receipts at a minute boundary. It prints one line per minute, and writes it to
 * {@code --soak-log FILE} (CSV if the name ends in {@code .csv}, else JSON lines): admissions and outcomes per second,
 * resumes, p50/p99/p99.9/max latency of the calls answered in that minute (measured from when each was due, so a
 * stall's backlog counts), outcome p99, how many due calls were still unanswered at the boundary ({@code behind}),
 * {@code /health}'s receipts, the ledger's heap after GC, {@code ledger.mv.db} and the whole state directory per
 * receipt, the ledger's and the generator's CPU, the ledger's WARN/ERROR lines, and errors by status and code.
 * Latencies are kept in per-minute histograms (under 1% error; the max is exact), so a soak of days holds no
 * per-call data. A minute counts the calls answered in it. When the soak ends, calls in flight are answered and
 * reported on their own line, and calls due but not yet sent (a ledger behind the schedule) are counted, not sent.
 *
 * <p>How the heap after GC is measured ({@code --live-heap}, see {@link LedgerWatch}): by default, for a ledger the
 * generator spawns, from the ledger's own GC log ({@code -Xlog:gc,gc+heap,gc+init:file=WORK/gc-N.log}, added to its JVM
 * options; it disturbs nothing), read once a minute: the heap after each collection (minimum and last of the minute)
 * and the live heap where the log states it exactly (ZGC's marking, a full collection); with G1 or Serial and no full
 * collection in the minute, the console shows the smallest heap after a collection prefixed {@code <=} because it is
 * only an upper bound. {@code --live-heap jcmd} instead forces a collection at every minute boundary
 * ({@code jcmd PID GC.run}, then {@code GC.heap_info}): exact with every collector, but with G1 or Serial a full
 * stop-the-world pause a minute, visible in that minute's max latency. It is the default for a ledger given by
 * {@code --ledger-pid} (give {@code --gc-log FILE} to follow its GC log instead).
 *
 * <p>Sessions in a soak: with {@code --spawn} and no {@code --policy}, the generator writes the example policy with
 * {@code ttl: 86400} to the temporary directory and spawns the ledger with it, so grants outlive the run and no resume
 * is needed ({@code --resume-every} defaults to 0 there). With {@code --policy} or a ledger not spawned,
 * {@code --resume-every} defaults to 240 s: every session is resumed once every 240 s, spread evenly over the
 * interval, by one more connection, with the edge id and incarnation it was initialized with (so no call is marked
 * {@code unknown}); the interval must be shorter than the policy's ttl.
 *
 * <p>At the end of a soak with {@code --spawn}: SIGTERM, then a start on the same state timed until {@code GET /health}
 * answers 200 (it may answer {@code 503 starting} while the start folds the log), then with {@code --kill-restart} a
 * {@code kill -9} of that ledger and a start after it (which runs the recovery scan), then a start on an empty state
 * with the same JVM options, for comparison; each check that {@code /health} counts the receipts it counted before the
 * stop. {@code --keep-state} keeps the temporary directory (state, the ledger's output, GC logs). A soak of one hour at
 * 1,000/s with ZGC, a per-minute CSV and the kill -9 restart:
 * {@code mvn -B -q -pl ledger-app exec:exec -Dexec.classpathScope=test "-Dexec.args=-cp %classpath
 * io.mcpledger.app.bench.HttpLoadGenerator --spawn --ledger-jvm-option=-XX:+UseZGC --rate 1000 --soak-minutes 60
 * --soak-log soak.csv --kill-restart"}.
 */
@Command(name = "HttpLoadGenerator", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Drive concurrent edges against a ledger over HTTP/1.1 keep-alive and report admissions/s, "
                + "p50/p99/p99.9 latency and errors.")
public final class HttpLoadGenerator implements Callable<Integer> {
    private static final String ARGUMENTS_SHA256 = Sha256.hexOfUtf8("{\"sku\":\"A-1\",\"qty\":3}");
    private static final Pattern DECISION = Pattern.compile("\"decision\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern RECEIPTS = Pattern.compile("\"receipts\"\\s*:\\s*(\\d+)");
    private static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern FOLDED = Pattern.compile("\"folded\"\\s*:\\s*(\\d+)");
    private static final Pattern OF = Pattern.compile("\"of\"\\s*:\\s*(\\d+)");
    private static final byte[] RECEIPT = "\"receipt\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ADMITTED = "\"decision\":\"admitted\"".getBytes(StandardCharsets.US_ASCII);
    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--url", defaultValue = "http://127.0.0.1:4320", description = "Ledger base URL (default ${DEFAULT-VALUE}).")
    URI url;

    @Option(names = "--also-url", description = "Another node of the same ledger (several nodes on PostgreSQL); "
            + "repeatable. Connection c goes to the (c mod n)-th of --url and these, as a load balancer that spreads "
            + "connections would send it; sessions are initialized and called on whichever connection they fall to.")
    List<URI> alsoUrls = new ArrayList<>();

    @Option(names = "--session-affinity", description = "Each connection calls only the sessions it initialized (as a "
            + "load balancer with session affinity sends them), instead of every session from any connection.")
    boolean sessionAffinity;

    @Option(names = "--sessionless", description = "Call POST /v1/calls, the sessionless call of MCP 2026-07-28 "
            + "(contract section 15), as --sessions clients each with a client token of its own, instead of calling "
            + "sessions; nothing is initialized, and --session-affinity gives each connection its own clients.")
    boolean sessionless;

    @Option(names = "--state", description = "The ledger's state directory, to read credentials/edge.token.")
    Path state;

    @Option(names = "--token", description = "The edge credential itself (instead of --state).")
    String token;

    @Option(names = "--spawn", description = "Start (a copy of) the packaged jar on a temporary state with --policy, "
            + "wait until /health answers 200, run against it, stop it with SIGTERM and delete the state. Ignores "
            + "--url, --state and --token.")
    boolean spawn;

    @Option(names = "--jar", description = "The ledger-app jar for --spawn (default: ledger-app/target/ledger-app-*.jar "
            + "found from the working directory upwards).")
    Path jar;

    @Option(names = "--policy", description = "The policy for --spawn (default: docs/examples/pricing-policy.yaml "
            + "found from the working directory upwards; in a soak, that policy's tools with ttl 86400, written to the "
            + "temporary directory).")
    Path policy;

    @Option(names = "--ledger-jvm-option", description = "A JVM option for the ledger --spawn starts, e.g. -XX:+UseZGC "
            + "(repeatable).")
    List<String> ledgerJvmOptions = new ArrayList<>();

    @Option(names = "--ledger-java", description = "The java executable for the ledger --spawn starts, e.g. another JDK's "
            + "bin/java to measure the ledger on it with the generator unchanged (default: the generator's own).")
    Path ledgerJava;

    @Option(names = "--ledger-arg", description = "An argument for the serve command --spawn runs, after its own, e.g. "
            + "--database=jdbc:postgresql://127.0.0.1:5432/ledger?user=ledger to spawn it on PostgreSQL (repeatable).")
    List<String> ledgerArgs = new ArrayList<>();

    @Option(names = "--ledger-pid", description = "Pid of a ledger not started by --spawn, to report its CPU, its "
            + "command line and (in a soak) its heap after a forced GC.")
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
            + "window, to tell steady queueing from stalls; closed loop on a spawned ledger with --warmup 0 and at least "
            + "60 s measured, also the warm-up target's figure: the rate 25 to 30 s after the ledger's Ready against "
            + "the steady rate (the median second of the last 30 s).")
    boolean timeline;

    @Option(names = "--probe-rate", description = "Open loop: also GET /health this many times a second on a connection "
            + "of its own, on its own schedule, and report its latency over the measured window: the part of the tail "
            + "that the HTTP path and the machine's scheduling make without any admission work (/health reads two "
            + "counters in memory).")
    Double probeRate;

    @Option(names = "--target-p99-ms", defaultValue = "5",
            description = "Open loop: say whether p99 is at most this (default ${DEFAULT-VALUE} ms).")
    double targetP99Millis;

    @Option(names = "--outcomes", description = "Fraction (0 to 1) of admitted calls that get POST "
            + ".../outcome {\"status\":\"ok\",\"resultSha256\":...} right after the admission, on the same "
            + "connection (default 1 in a soak, 0 otherwise).")
    Double outcomes;

    @Option(names = "--soak-minutes", description = "Soak: drive --rate (default 1,000/s) open loop for this many "
            + "minutes, printing one line per minute, then time restarts (with --spawn).")
    Integer soakMinutes;

    @Option(names = "--soak-receipts", description = "Soak: stop at the first minute boundary at which /health counts "
            + "at least this many receipts (with --soak-minutes: whichever comes first).")
    Long soakReceipts;

    @Option(names = "--soak-log", description = "Soak: also write every minute's figures to this file, CSV if its name "
            + "ends in .csv, else one JSON object a line.")
    Path soakLog;

    @Option(names = "--resume-every", description = "Soak: resume every session once every this many seconds, spread "
            + "over the interval (0: never; default 0 with the policy a soak with --spawn writes, 240 otherwise).")
    Integer resumeEverySeconds;

    @Option(names = "--live-heap", description = "Soak: how to measure the ledger's heap after GC: gclog (its GC log), "
            + "jcmd (a forced GC at every minute boundary) or none (default gclog with --spawn or --gc-log, jcmd with "
            + "--ledger-pid).")
    String liveHeap;

    @Option(names = "--gc-log", description = "Soak against a ledger not spawned: its GC log, written with "
            + "-Xlog:gc,gc+heap,gc+init:file=FILE:uptime,level,tags:filecount=0.")
    Path gcLog;

    @Option(names = "--kill-restart", description = "Soak with --spawn: after the start that follows SIGTERM, also "
            + "kill -9 the ledger and time the start after that.")
    boolean killRestart;

    @Option(names = "--start-timeout", defaultValue = "900",
            description = "Seconds a spawned ledger may take until /health answers 200 (default ${DEFAULT-VALUE}).")
    int startTimeoutSeconds;

    @Option(names = "--keep-state", description = "With --spawn: keep the temporary directory (state, the ledger's "
            + "output, GC logs) and say where it is.")
    boolean keepState;

    /** The policy a soak with {@code --spawn} and no {@code --policy} writes: the example's tools, for a day. */
    static final String SOAK_POLICY = """
            # Written by HttpLoadGenerator for a soak: the example pricing policy (docs/examples/pricing-policy.yaml)
            # with grants of a day instead of 300 s, so that sessions need no resume during the run.
            capabilities:
              default:
                tools:
                  - server: pricing
                    tool: quote
                    operations: [invoke]
                    ttl: 86400
                  - server: pricing
                    tool: discount
                    operations: [invoke]
                    ttl: 86400
            """;

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
    private static final String RESULT_SHA256 = Sha256.hexOfUtf8("{\"price\":\"41.70\",\"currency\":\"EUR\"}");
    private static final String OUTCOME_BODY = "{\"status\":\"ok\",\"resultSha256\":\"" + RESULT_SHA256 + "\"}";

    private SpawnedLedger spawned;
    /** {@link System#nanoTime()} when the spawned ledger first answered {@code /health} 200 (its Ready), else 0. */
    private long readyNanos;

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
        if (sessionless && soaking()) {
            System.err.println("--sessionless is not for a soak, which resumes sessions");
            return 2;
        }
        if (sessionAffinity && sessions < connections) {
            System.err.println("--session-affinity needs at least as many --sessions as --connections");
            return 2;
        }
        if ((outcomes != null && !(outcomes >= 0 && outcomes <= 1)) || (soakMinutes != null && soakMinutes < 1)
                || (soakReceipts != null && soakReceipts < 1) || (resumeEverySeconds != null && resumeEverySeconds < 0)
                || (liveHeap != null && !List.of("gclog", "jcmd", "none").contains(liveHeap))
                || startTimeoutSeconds < 1) {
            System.err.println("--outcomes must be 0 to 1, --soak-minutes, --soak-receipts and --start-timeout at "
                    + "least 1, --resume-every at least 0, --live-heap gclog, jcmd or none");
            return 2;
        }
        if (!soaking() && (soakLog != null || resumeEverySeconds != null || liveHeap != null || gcLog != null
                || killRestart)) {
            System.err.println("--soak-log, --resume-every, --live-heap, --gc-log and --kill-restart need "
                    + "--soak-minutes or --soak-receipts");
            return 2;
        }
        if (killRestart && !spawn) {
            System.err.println("--kill-restart needs --spawn");
            return 2;
        }
        if (!ledgerArgs.isEmpty() && (!spawn || killRestart)) {
            System.err.println("--ledger-arg needs --spawn, and not --kill-restart (whose second ledger starts empty)");
            return 2;
        }
        if (soaking() && rate == null) {
            rate = 1000.0;
        }
        // Loads every class of the generator now, so that a build cleaning target/test-classes during a long run
        // cannot break its end (the restarts); the spawned ledger runs a copy of the jar for the same reason.
        HttpLoadGenerator.class.getNestMembers();
        LedgerWatch.class.getNestMembers();
        try {
            if (spawn) {
                Path policyFile = policy != null ? policy
                        : soaking() ? null : findUpwards("docs/examples", "pricing-policy.yaml");
                spawned = SpawnedLedger.create(jar != null ? jar : findUpwards("ledger-app/target", "ledger-app-"),
                        policyFile, ledgerJava, ledgerJvmOptions, ledgerArgs,
                        soaking() && !heapMode().equals("none"), keepState);
                StartTiming started = spawned.start(Duration.ofSeconds(startTimeoutSeconds));
                System.out.printf(Locale.ROOT, "the ledger answered /health 200 after %.2f s%n",
                        started.healthySeconds());
                readyNanos = started.healthyNanos();
                url = spawned.url;
                token = spawned.edgeToken;
                ledgerPid = spawned.process.pid();
                state = spawned.stateDir;
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

    private boolean soaking() {
        return soakMinutes != null || soakReceipts != null;
    }

    private double outcomeFraction() {
        return outcomes != null ? outcomes : soaking() ? 1.0 : 0.0;
    }

    private int resumeInterval() {
        if (resumeEverySeconds != null) {
            return resumeEverySeconds;
        }
        return spawn && policy == null ? 0 : 240;
    }

    private String heapMode() {
        if (liveHeap != null) {
            return liveHeap;
        }
        return spawn || gcLog != null ? "gclog" : ledgerPid != null ? "jcmd" : "none";
    }

    /** The {@code n}-th call of {@code edge} with session affinity: one of the sessions it initialized, in turn. */
    private int ownSession(Edge edge, long n) {
        int own = (sessions - edge.index + connections - 1) / connections;
        return edge.index + (int) (Math.floorMod(n, (long) Math.max(own, 1))) * connections;
    }

    /** Call {@code k} gets an outcome: exactly the fraction {@code f} of calls, spread evenly. */
    private static boolean wantsOutcome(long k, double f) {
        return f >= 1 || (f > 0 && Math.floor((k + 1) * f) > Math.floor(k * f));
    }

    private int run() throws Exception {
        String host = url.getHost();
        int port = url.getPort() < 0 ? 80 : url.getPort();
        hostHeader = host + ":" + port;
        System.out.printf(Locale.ROOT, "java %s, %d processors; load average at the start: %s%n",
                System.getProperty("java.version"), CORES, loadAverage());
        if (soaking()) {
            System.out.printf(Locale.ROOT, "ledger %s%s; soak, %s for %s, outcomes for %s of the admitted calls, "
                            + "resumes %s, %d connections, %d sessions%n", url, spawn ? " (spawned)" : "", mode(),
                    soakMinutes == null ? "ever" : soakMinutes + (soakMinutes == 1 ? " minute" : " minutes"),
                    trim(outcomeFraction()),
                    resumeInterval() == 0 ? "never" : "every " + resumeInterval() + " s per session",
                    connections, sessions);
            if (soakReceipts != null) {
                System.out.printf(Locale.ROOT, "stopping once /health counts %,d receipts (checked every minute)%n",
                        soakReceipts);
            }
        } else {
            System.out.printf(Locale.ROOT, "ledger %s%s; %s, %d connections, %d sessions, warm-up %d s, measured %d s"
                            + "%s%n", url, spawn ? " (spawned)" : "", mode(), connections, sessions, warmup, duration,
                    outcomeFraction() == 0 ? ""
                            : ", outcomes for " + trim(outcomeFraction()) + " of the admitted calls");
        }
        System.out.println("ledger JVM: " + ledgerCommandLine());

        long receiptsBefore = healthReceipts(host, port);
        Edge[] edges = new Edge[connections];
        List<URI> nodes = new ArrayList<>(List.of(url));
        nodes.addAll(alsoUrls);
        if (nodes.size() > 1) {
            System.out.println("nodes: " + nodes + " (connection c on node c mod " + nodes.size() + ")");
        }
        for (int c = 0; c < connections; c++) {
            URI node = nodes.get(c % nodes.size());
            edges[c] = new Edge(c, new Http1Connection(node.getHost(), node.getPort() < 0 ? 80 : node.getPort()));
        }
        String[] sessionIds = new String[sessions];
        String[] clientTokens = new String[sessions];
        long t0 = System.nanoTime();
        runOnEdges(edges, edge -> {
            for (int i = edge.index; i < sessions; i += connections) {
                String clientToken = Sha256.hexOfUtf8("load-client-" + run + "-" + i);
                if (sessionless) {
                    clientTokens[i] = clientToken;
                    continue;
                }
                Response answer = edge.connection.exchange(request("POST", "/v1/sessions", clientToken,
                        initializeBody(edge.index)));
                if (answer.status != 201) {
                    throw new IllegalStateException("initialize answered " + answer.status + ": " + answer.text());
                }
                sessionIds[i] = Canonical.parse(answer.text()).path("session").path("id").asText();
                clientTokens[i] = clientToken;
            }
        });
        if (!sessionless) {
            System.out.printf(Locale.ROOT, "initialized %,d sessions in %.1f s%n", sessions,
                    (System.nanoTime() - t0) / 1e9);
        }
        if (soaking()) {
            return soak(host, port, edges, sessionIds, clientTokens);
        }

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
        Latencies probes = new Latencies();
        Thread prober = null;
        if (probeRate != null) {
            Http1Connection probeConnection = new Http1Connection(host, port);
            prober = new Thread(() -> {
                try (probeConnection) {
                    probe(probeConnection, window, probes);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "prober");
            prober.start();
        }
        if (warmup > 0) {
            // The ledger's first /metrics runs cold code for about 0.2 s of a core; in the warm-up, not in the window.
            meters(host, port);
        }
        sleepUntil(window.measureStart);
        Cpu before = Cpu.now(ledgerPid);
        LedgerMeters metersBefore = meters(host, port);
        sleepUntil(window.end);
        Cpu after = Cpu.now(ledgerPid);
        LedgerMeters metersAfter = meters(host, port);
        for (Thread thread : threads) {
            thread.join();
        }
        if (prober != null) {
            prober.join();
        }
        for (Edge edge : edges) {
            edge.connection.close();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an edge failed: " + failure.get(), failure.get());
        }
        report(edges, before, after);
        if (probeRate != null) {
            System.out.printf(Locale.ROOT, "probe: GET /health at %s/s beside the load, %,d answered in the window: "
                            + "p50 %s  p99 %s  p99.9 %s  max %s%n", trim(probeRate), probes.count(),
                    millis(probes.percentileMillis(0.50)), millis(probes.percentileMillis(0.99)),
                    millis(probes.percentileMillis(0.999)), millis(probes.maxMillis()));
        }
        if (metersBefore != null && metersAfter != null) {
            System.out.print("inside the ledger during the measured window (its /metrics):\n"
                    + metersAfter.since(metersBefore));
        }
        if (timeline) {
            warmUp(edges, window, timeline(edges));
        }
        checkReceipts(host, port, receiptsBefore, edges);
        return 0;
    }

    /**
     * The probe's loop: GET /health at each due time of its own schedule, over the warm-up and the window; only the
     * answers due in the window are recorded, each from when it was due, so a slow answer delays the next one's
     * sending and that delay counts too.
     */
    private void probe(Http1Connection connection, Window window, Latencies probes) throws IOException {
        double period = 1e9 / probeRate;
        byte[] health = healthRequest(hostHeader);
        for (long k = 0; ; k++) {
            long due = window.start + (long) (k * period);
            if (due >= window.end) {
                return;
            }
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            Response answer = connection.exchange(health);
            long done = System.nanoTime();
            if (answer.status != 200) {
                throw new IllegalStateException("/health answered " + answer.status + ": " + answer.text());
            }
            if (due >= window.measureStart) {
                probes.record(done - due);
            }
        }
    }

    /**
     * One edge's loop: closed (next call when the answer is in) or open (each call at its due time). {@code calls}
     * numbers every call (request id, session); {@code scheduled} numbers the open-loop due times.
     */
    private void drive(Edge edge, Window window, AtomicLong calls, AtomicLong scheduled, String[] sessionIds,
                       String[] clientTokens) throws InterruptedException {
        double period = rate == null ? 0 : 1e9 / rate;
        double fraction = outcomeFraction();
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
            int s = sessionAffinity ? ownSession(edge, edge.affine++) : (int) (k % sessions);
            byte[] call = sessionless ? request("POST", "/v1/calls", clientTokens[s], clientCallBody(k, edge.index))
                    : request("POST", "/v1/sessions/" + sessionIds[s] + "/calls", clientTokens[s], callBody(k));
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
            Outcome reported = outcome == null && wantsOutcome(k, fraction)
                    ? reportOutcome(edge.connection, sessionIds[s], clientTokens[s], k) : null;
            if (reported != null && reported.receipt) {
                edge.answeredWithReceipt++;
            }
            boolean measured = rate != null ? due >= window.measureStart
                    : due >= window.measureStart && done <= window.end;
            if (!measured) {
                if (outcome != null) {
                    edge.errorsOutside++;
                }
                if (reported != null && reported.error != null) {
                    edge.errorsOutside++;
                }
                continue;
            }
            if (reported != null && reported.error != null) {
                edge.errors.merge(reported.error, 1L, Long::sum);
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

    // ---------------------------------------------------------------- soak

    /**
     * A soak: the open-loop schedule from the first second, one line per minute, and at the end (with
     * {@code --spawn}) the restarts. See the class comment.
     */
    private int soak(String host, int port, Edge[] edges, String[] sessionIds, String[] clientTokens)
            throws Exception {
        double fraction = outcomeFraction();
        long resumeNanos = TimeUnit.SECONDS.toNanos(resumeInterval());
        String heapMode = heapMode();
        LedgerWatch.GcLog gc = heapMode.equals("none") ? null
                : spawned != null && spawned.gcLog != null ? new LedgerWatch.GcLog(spawned.gcLog)
                : gcLog != null ? new LedgerWatch.GcLog(gcLog) : null;
        if (heapMode.equals("jcmd") && ledgerPid == null) {
            System.err.println("--live-heap jcmd needs --ledger-pid or --spawn; the heap after GC is not measured");
            heapMode = gc != null ? "gclog" : "none";
        }
        if (heapMode.equals("gclog") && gc == null) {
            heapMode = "none";
        }
        if (gc != null) {
            gc.read(); // The start's collections are not the soak's; this also reads the collector's name.
        }
        System.out.println("heap after GC: " + switch (heapMode) {
            case "gclog" -> "from the ledger's GC log (" + (spawned != null ? spawned.gcLog : gcLog) + "), "
                    + "collector: " + (gc.collector().isEmpty() ? "not named yet" : gc.collector())
                    + (gc.maxHeap() < 0 ? "" : ", max heap " + mib(gc.maxHeap()))
                    + "; 'live' is exact after a ZGC marking or a full GC, '<=' marks an upper bound (the smallest "
                    + "heap after a young collection)";
            case "jcmd" -> "jcmd " + ledgerPid + " GC.run, then GC.heap_info, at every minute boundary (a forced "
                    + "collection: with G1 or Serial a full pause, in the next minute's latency)";
            default -> "not measured (give --spawn, --gc-log FILE or --ledger-pid)";
        });
        LedgerWatch.Output output = spawned != null ? new LedgerWatch.Output(spawned.output) : null;
        long receiptsAtStart = healthReceipts(host, port);

        long start = System.nanoTime() + 100_000_000L;
        Soak soak = new Soak(start, 1e9 / rate, soakMinutes == null ? Long.MAX_VALUE : start + soakMinutes * MINUTE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (Edge edge : edges) {
            threads.add(new Thread(() -> {
                try {
                    soakDrive(edge, soak, sessionIds, clientTokens, fraction);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "edge-" + edge.index));
        }
        Http1Connection resumeConnection = new Http1Connection(host, port);
        if (resumeNanos > 0) {
            threads.add(new Thread(() -> {
                try {
                    resumeLoop(soak, resumeConnection, sessionIds, clientTokens, resumeNanos);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "resumer"));
        }
        threads.forEach(Thread::start);

        Counts total = new Counts();
        Cpu previous = Cpu.now(ledgerPid);
        System.out.println();
        System.out.println(MinuteLine.HEADER);
        try (SoakLog log = soakLog == null ? null : new SoakLog(soakLog)) {
            for (int minute = 1; start + minute * MINUTE <= soak.stopAt && failure.get() == null; minute++) {
                long boundary = start + minute * MINUTE;
                long left;
                while ((left = boundary - System.nanoTime()) > 0 && failure.get() == null) {
                    Thread.sleep(Math.max(1, Math.min(1000, left / 1_000_000)));
                }
                if (failure.get() != null) {
                    break;
                }
                Counts counts = collect(edges, soak);
                long behind = soak.dueBy(System.nanoTime()) - soak.answered.get();
                total.add(counts);
                Cpu now = Cpu.now(ledgerPid);
                Health health = healthOrNull(host, port);
                LedgerWatch.Heap heap = heapMode.equals("jcmd") ? LedgerWatch.forcedGc(ledgerPid, gc)
                        : gc != null ? gc.read() : LedgerWatch.Heap.UNKNOWN;
                long[] disk = LedgerWatch.diskUse(state);
                long[] problems = output == null ? new long[] {-1, -1} : output.read();
                double seconds = (now.wallNanos - previous.wallNanos) / 1e9;
                MinuteLine line = new MinuteLine(minute, Instant.now(), counts.admitted / 60.0,
                        counts.outcomes / 60.0, counts.resumes, counts.calls.percentileMillis(0.50),
                        counts.calls.percentileMillis(0.99), counts.calls.percentileMillis(0.999),
                        counts.calls.maxMillis(), counts.outcomeLatency.percentileMillis(0.99), behind,
                        health == null ? -1 : health.receipts, health == null ? "no answer" : health.state, heap,
                        disk[0], disk[1],
                        previous.ledgerNanos < 0 || now.ledgerNanos < 0 ? Double.NaN
                                : (now.ledgerNanos - previous.ledgerNanos) / 1e9 / seconds * 100 / CORES,
                        (now.generatorNanos - previous.generatorNanos) / 1e9 / seconds * 100 / CORES,
                        problems[0], problems[1], counts.errors);
                System.out.println(line.console());
                if (log != null) {
                    log.write(line);
                }
                previous = now;
                if (soakReceipts != null && health != null && health.receipts >= soakReceipts) {
                    soak.stopAt = boundary;
                }
            }
        } finally {
            soak.stopAt = Math.min(soak.stopAt, System.nanoTime());
            for (Thread t : threads) {
                t.join();
            }
            for (Edge edge : edges) {
                edge.connection.close();
            }
            resumeConnection.close();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the soak failed: " + failure.get(), failure.get());
        }
        Counts tail = collect(edges, soak);
        total.add(tail);
        long unsent = soak.dueBy(Long.MAX_VALUE) - soak.answered.get();
        if (unsent > 0) {
            System.out.printf(Locale.ROOT, "at the end %,d calls due during the soak had not been sent (the ledger was "
                    + "that far behind the schedule); they were not sent%n", unsent);
        }
        if (tail.calls.count() + tail.errorCount() + tail.outcomes + tail.resumes > 0) {
            System.out.printf(Locale.ROOT, "in flight at the last minute's boundary: %,d calls answered (max %s), %,d "
                    + "outcomes, %,d resumes, errors %s%n", tail.calls.count(), millis(tail.calls.maxMillis()),
                    tail.outcomes, tail.resumes, tail.errors.isEmpty() ? "none" : tail.errors);
        }
        long receiptsEnd = healthReceipts(host, port);
        System.out.println();
        System.out.printf(Locale.ROOT, "soak, %s: %,d admitted, %,d outcomes, %,d resumes; latency of %,d answered "
                        + "calls: p50 %s  p99 %s  p99.9 %s  max %s; outcomes p99 %s%n", mode(), total.admitted,
                total.outcomes, total.resumes, total.calls.count(), millis(total.calls.percentileMillis(0.50)),
                millis(total.calls.percentileMillis(0.99)), millis(total.calls.percentileMillis(0.999)),
                millis(total.calls.maxMillis()), millis(total.outcomeLatency.percentileMillis(0.99)));
        System.out.println("errors: " + (total.errors.isEmpty() ? "none" : total.errors));
        System.out.printf(Locale.ROOT, "check: /health counted %,d receipts when the soak started and %,d at its end "
                        + "(+%,d); answers with a receipt: %,d%s%n", receiptsAtStart, receiptsEnd,
                receiptsEnd - receiptsAtStart, total.receipts, receiptsEnd - receiptsAtStart == total.receipts ? ""
                        : " -- MISMATCH (or another client wrote to this ledger)");
        long[] disk = LedgerWatch.diskUse(state);
        if (disk[0] >= 0) {
            System.out.printf(Locale.ROOT, "disk at the end: ledger.mv.db %s (%s bytes per receipt), the state "
                            + "directory %s (%s bytes per receipt), %,d receipts%n", LedgerWatch.size(disk[0]),
                    perReceipt(disk[0], receiptsEnd), LedgerWatch.size(disk[1]), perReceipt(disk[1], receiptsEnd),
                    receiptsEnd);
        }
        if (output != null) {
            output.read();
            System.out.printf(Locale.ROOT, "the ledger's output (%s): %,d WARN and %,d ERROR lines%s%n",
                    spawned.output, output.warnings(), output.errors(), output.firstProblems().isEmpty() ? ""
                            : "; the first:");
            output.firstProblems().forEach(l -> System.out.println("  " + l));
        }
        if (spawned != null) {
            restarts(receiptsEnd);
        }
        return 0;
    }

    /** One edge's soak loop: each call at its due time, its outcome right after it when chosen. */
    private void soakDrive(Edge edge, Soak soak, String[] sessionIds, String[] clientTokens, double fraction)
            throws InterruptedException {
        while (true) {
            long k = soak.scheduled.getAndIncrement();
            long due = soak.start + (long) (k * soak.period);
            if (due >= soak.stopAt) {
                return;
            }
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            if (due >= soak.stopAt || System.nanoTime() >= soak.stopAt) {
                return; // A call still unsent when the soak ends is not sent: the backlog is reported, not drained.
            }
            int s = (int) (k % sessions);
            Response answer = null;
            String error;
            try {
                answer = edge.connection.exchange(request("POST", "/v1/sessions/" + sessionIds[s] + "/calls",
                        clientTokens[s], callBody(k)));
                error = classify(answer);
            } catch (SocketTimeoutException e) {
                error = "timeout after " + SOCKET_TIMEOUT.toSeconds() + " s";
            } catch (IOException e) {
                error = "I/O: " + e.getMessage();
                Thread.sleep(10); // The ledger is gone or restarting: do not spin on reconnects.
            }
            long done = System.nanoTime();
            soak.answered.incrementAndGet();
            Outcome reported = error == null && wantsOutcome(k, fraction)
                    ? reportOutcome(edge.connection, sessionIds[s], clientTokens[s], k) : null;
            synchronized (edge) {
                Counts c = edge.minute;
                if (error == null) {
                    c.admitted++;
                } else {
                    c.errors.merge(error, 1L, Long::sum);
                }
                if (answer != null && answer.status / 100 == 2) {
                    c.calls.record(done - due);
                }
                if (answer != null && (answer.status / 100 == 2 || indexOf(answer.body, RECEIPT) >= 0)) {
                    c.receipts++;
                }
                if (reported != null) {
                    if (reported.error == null) {
                        c.outcomes++;
                        c.outcomeLatency.record(reported.nanos);
                    } else {
                        c.errors.merge(reported.error, 1L, Long::sum);
                    }
                    if (reported.receipt) {
                        c.receipts++;
                    }
                }
            }
        }
    }

    /**
     * Resumes session {@code i} at {@code start + (i + 1/2) * interval / sessions}, and again every interval after,
     * with the edge id and incarnation that initialized it, so the resume marks no call {@code unknown}.
     */
    private void resumeLoop(Soak soak, Http1Connection connection, String[] sessionIds, String[] clientTokens,
                            long intervalNanos) throws InterruptedException {
        for (long n = 0; ; n++) {
            int i = (int) (n % sessions);
            long due = soak.start + (long) ((n + 0.5) * intervalNanos / sessions);
            long wait;
            while ((wait = due - System.nanoTime()) > 0 && due < soak.stopAt) {
                LockSupport.parkNanos(Math.min(wait, 100_000_000L));
            }
            if (due >= soak.stopAt) {
                return;
            }
            String error = null;
            boolean receipt = false;
            try {
                Response answer = connection.exchange(request("POST", "/v1/sessions/" + sessionIds[i] + "/resume",
                        clientTokens[i], resumeBody(i % connections)));
                receipt = answer.status / 100 == 2 || indexOf(answer.body, RECEIPT) >= 0;
                if (answer.status != 200) {
                    Matcher code = CODE.matcher(answer.text());
                    error = "resume " + answer.status + " " + (code.find() ? code.group(1) : "no error code");
                }
            } catch (SocketTimeoutException e) {
                error = "resume timeout after " + SOCKET_TIMEOUT.toSeconds() + " s";
            } catch (IOException e) {
                error = "resume I/O: " + e.getMessage();
                Thread.sleep(10);
            }
            synchronized (soak) {
                Counts c = soak.resumeCounts;
                if (error == null) {
                    c.resumes++;
                } else {
                    c.errors.merge(error, 1L, Long::sum);
                }
                if (receipt) {
                    c.receipts++;
                }
            }
        }
    }

    /** What every edge and the resumer counted since the last call; each starts a new minute. */
    private static Counts collect(Edge[] edges, Soak soak) {
        Counts counts = new Counts();
        for (Edge edge : edges) {
            counts.add(edge.swap());
        }
        counts.add(soak.swapResumes());
        return counts;
    }

    private record Outcome(String error, boolean receipt, long nanos) {
    }

    /** {@code POST .../calls/{requestId}/outcome} {@code {"status":"ok","resultSha256":...}} for call {@code k}. */
    private Outcome reportOutcome(Http1Connection connection, String sessionId, String clientToken, long k) {
        long sent = System.nanoTime();
        String error = null;
        boolean receipt = false;
        try {
            Response answer = connection.exchange(request("POST", (sessionId == null ? "/v1" : "/v1/sessions/"
                    + sessionId) + "/calls/" + requestId(k) + "/outcome", clientToken, OUTCOME_BODY));
            receipt = answer.status / 100 == 2 || indexOf(answer.body, RECEIPT) >= 0;
            if (answer.status != 200) {
                Matcher code = CODE.matcher(answer.text());
                error = "outcome " + answer.status + " " + (code.find() ? code.group(1) : "no error code");
            }
        } catch (SocketTimeoutException e) {
            error = "outcome timeout after " + SOCKET_TIMEOUT.toSeconds() + " s";
        } catch (IOException e) {
            error = "outcome I/O: " + e.getMessage();
        }
        return new Outcome(error, receipt, System.nanoTime() - sent);
    }

    /**
     * At the end of a soak with {@code --spawn}: SIGTERM, a start on the same state, optionally a kill -9 and a
     * start after it, then a start on an empty state with the same JVM options; each timed until /health answers 200.
     */
    private void restarts(long receiptsEnd) throws Exception {
        Duration timeout = Duration.ofSeconds(startTimeoutSeconds);
        System.out.println();
        System.out.println("restarts, with the same JVM options: " + spawned.jvmOptionsDescription());
        long[] disk = LedgerWatch.diskUse(spawned.stateDir);
        Stop stop = spawned.stop();
        long[] stopped = LedgerWatch.diskUse(spawned.stateDir);
        System.out.printf(Locale.ROOT, "SIGTERM: the ledger exited after %.2f s with status %d and %s; ledger.mv.db "
                        + "%s before the stop, %s after it%n", stop.seconds, stop.exitStatus,
                stop.stoppedLine ? "printed 'Stopped: ...'" : "did NOT print 'Stopped: ...'",
                LedgerWatch.size(disk[0]), LedgerWatch.size(stopped[0]));
        List<String> rows = new ArrayList<>();
        StartTiming clean = spawned.start(timeout);
        rows.add(startRow("the soak's state, after SIGTERM", receiptsEnd, stopped, clean));
        checkRestart(clean, receiptsEnd);
        StartTiming unclean = null;
        if (killRestart) {
            long[] diskBefore = LedgerWatch.diskUse(spawned.stateDir);
            spawned.kill();
            System.out.println("kill -9 of the ledger that had just started (idle)");
            unclean = spawned.start(timeout);
            rows.add(startRow("the soak's state, after kill -9", receiptsEnd, diskBefore, unclean));
            checkRestart(unclean, receiptsEnd);
        }
        long[] beforeLast = LedgerWatch.diskUse(spawned.stateDir);
        Stop last = spawned.stop();
        System.out.printf(Locale.ROOT, "SIGTERM of the restarted ledger: it exited after %.2f s with status %d%s; "
                        + "ledger.mv.db %s before the stop, %s after it%n", last.seconds, last.exitStatus,
                last.stoppedLine ? "" : " and did NOT print 'Stopped: ...'", LedgerWatch.size(beforeLast[0]),
                LedgerWatch.size(LedgerWatch.diskUse(spawned.stateDir)[0]));
        StartTiming fresh;
        long[] emptyDisk;
        try (SpawnedLedger empty = SpawnedLedger.create(spawned.jar, spawned.policy, spawned.javaExecutable,
                spawned.jvmOptions, List.of(), spawned.gcLogging, false)) {
            fresh = empty.start(timeout);
            emptyDisk = LedgerWatch.diskUse(empty.stateDir);
            empty.stop();
        }
        rows.add(0, startRow("an empty state", 0, emptyDisk, fresh));
        System.out.println();
        System.out.println("| start on | receipts | ledger.mv.db | state dir | port answers | 503 starting | "
                + "/health 200 |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        rows.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "%nafter SIGTERM the start on %,d receipts took %.2f s, %.2f s more than on an "
                        + "empty state (%.2f s): %s per receipt%n", receiptsEnd, clean.healthySeconds(),
                clean.healthySeconds() - fresh.healthySeconds(), fresh.healthySeconds(),
                microsPerReceipt(clean.healthySeconds() - fresh.healthySeconds(), receiptsEnd));
        if (unclean != null) {
            System.out.printf(Locale.ROOT, "after kill -9 it took %.2f s, %.2f s more than on an empty state: %s per "
                            + "receipt%n", unclean.healthySeconds(), unclean.healthySeconds() - fresh.healthySeconds(),
                    microsPerReceipt(unclean.healthySeconds() - fresh.healthySeconds(), receiptsEnd));
        }
    }

    private static String startRow(String what, long receipts, long[] disk, StartTiming t) {
        return String.format(Locale.ROOT, "| %s | %,d | %s | %s | %.2f s | %s | %.2f s |", what, receipts,
                LedgerWatch.size(disk[0]), LedgerWatch.size(disk[1]), t.answeringSeconds(),
                Double.isNaN(t.startingSeconds()) ? "not seen" : String.format(Locale.ROOT, "%.2f s (%s)",
                        t.healthySeconds() - t.startingSeconds(), t.lastStarting()),
                t.healthySeconds());
    }

    private static void checkRestart(StartTiming t, long receiptsEnd) {
        if (t.receipts() != receiptsEnd) {
            System.out.printf(Locale.ROOT, "MISMATCH: after the restart /health counts %,d receipts, before the stop "
                    + "%,d%n", t.receipts(), receiptsEnd);
        }
    }

    private static String microsPerReceipt(double seconds, long receipts) {
        return receipts <= 0 ? "n/a" : String.format(Locale.ROOT, "%.1f us", seconds * 1e6 / receipts);
    }

    private static String perReceipt(long bytes, long receipts) {
        return bytes < 0 || receipts <= 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f", (double) bytes / receipts);
    }

    /** 412M: binary megabytes, the GC log's unit. */
    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : bytes < (10L << 20) ? String.format(Locale.ROOT, "%.1fM", bytes / 1048576.0)
                : (bytes >> 20) + "M";
    }

    /** The soak's schedule: call {@code k} is due at {@code start + k * period}; none at or after {@code stopAt}. */
    private static final class Soak {
        final long start;
        final double period;
        volatile long stopAt;
        final AtomicLong scheduled = new AtomicLong();
        /** Calls answered (or failed): with {@link #dueBy}, how far behind the schedule the ledger is. */
        final AtomicLong answered = new AtomicLong();
        /** The resumer's counts of this minute; guarded by this. */
        Counts resumeCounts = new Counts();

        Soak(long start, double period, long stopAt) {
            this.start = start;
            this.period = period;
            this.stopAt = stopAt;
        }

        /** Calls due by {@code now} (and before {@link #stopAt}). */
        long dueBy(long now) {
            long until = Math.min(now, stopAt - 1);
            return until < start ? 0 : (long) Math.floor((until - start) / period) + 1;
        }

        synchronized Counts swapResumes() {
            Counts c = resumeCounts;
            resumeCounts = new Counts();
            return c;
        }
    }

    /** What was answered in one minute (or the whole soak): counts, latency histograms, errors by status and code. */
    static final class Counts {
        final Latencies calls = new Latencies();
        final Latencies outcomeLatency = new Latencies();
        long admitted;
        long outcomes;
        long resumes;
        /** Answers that carried a receipt: each is one more receipt in the ledger. */
        long receipts;
        final Map<String, Long> errors = new TreeMap<>();

        void add(Counts other) {
            calls.add(other.calls);
            outcomeLatency.add(other.outcomeLatency);
            admitted += other.admitted;
            outcomes += other.outcomes;
            resumes += other.resumes;
            receipts += other.receipts;
            other.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
        }

        long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Latencies in nanoseconds as a histogram with 128 buckets per power of two (under 0.8% error; the max is kept
     * exactly): a minute at any rate is 29 KB, so a soak keeps no per-call data.
     */
    static final class Latencies {
        private static final int SUB = 128;
        private final int[] counts = new int[2 * SUB + 56 * SUB];
        private long count;
        private long max;

        void record(long nanos) {
            long v = Math.max(0, nanos);
            counts[index(v)]++;
            count++;
            max = Math.max(max, v);
        }

        void add(Latencies other) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += other.counts[i];
            }
            count += other.count;
            max = Math.max(max, other.max);
        }

        long count() {
            return count;
        }

        double maxMillis() {
            return count == 0 ? Double.NaN : max / 1e6;
        }

        double percentileMillis(double q) {
            if (count == 0) {
                return Double.NaN;
            }
            long rank = Math.max(1, (long) Math.ceil(q * count));
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return Math.min(value(i), max) / 1e6;
                }
            }
            return max / 1e6;
        }

        private static int index(long v) {
            if (v < 2 * SUB) {
                return (int) v;
            }
            int shift = 63 - Long.numberOfLeadingZeros(v) - 7;
            return 2 * SUB + (shift - 1) * SUB + (int) (v >>> shift) - SUB;
        }

        /** The middle of bucket {@code i}. */
        private static long value(int i) {
            if (i < 2 * SUB) {
                return i;
            }
            int shift = (i - 2 * SUB) / SUB + 1;
            long top = (i - 2 * SUB) % SUB + SUB;
            return (top << shift) + (1L << (shift - 1));
        }
    }

    /** One minute of a soak, as the console shows it and as {@code --soak-log} stores it. */
    private record MinuteLine(int minute, Instant at, double admissionsPerSecond, double outcomesPerSecond,
                              long resumes, double p50, double p99, double p999, double max, double outcomeP99,
                              long behind, long receipts, String health, LedgerWatch.Heap heap, long dbBytes,
                              long dirBytes, double ledgerCpu, double generatorCpu, long warnLines, long errorLines,
                              Map<String, Long> errors) {
        static final String HEADER = String.format(Locale.ROOT,
                "%6s %6s %6s %7s %8s %8s %8s %8s %8s %7s %11s %9s %13s %4s %9s %9s %9s %5s  %s", "minute", "adm/s",
                "out/s", "resumes", "p50", "p99", "p99.9", "max", "out p99", "behind", "receipts", "live heap",
                "after GC", "GCs", "db B/rct", "dir B/rct", "CPU l/g", "W/E", "errors");
        static final String CSV_HEADER = "minute,time,admissions_per_s,outcomes_per_s,resumes,p50_ms,p99_ms,p99_9_ms,"
                + "max_ms,outcome_p99_ms,behind,receipts,health,gc_collections,heap_after_gc_min_bytes,"
                + "heap_after_gc_last_bytes,live_heap_bytes,live_heap_from,ledger_mv_db_bytes,state_dir_bytes,"
                + "ledger_mv_db_bytes_per_receipt,state_dir_bytes_per_receipt,ledger_cpu_percent,"
                + "generator_cpu_percent,ledger_warn_lines,ledger_error_lines,errors";

        String console() {
            String live = heap.live() >= 0 ? mib(heap.live()) : heap.afterMin() >= 0 ? "<=" + mib(heap.afterMin())
                    : "n/a";
            String after = heap.afterMin() < 0 ? "n/a" : mib(heap.afterMin()) + "/" + mib(heap.afterLast());
            return String.format(Locale.ROOT,
                    "%6d %,6.0f %,6.0f %7d %8s %8s %8s %8s %8s %,7d %,11d %9s %13s %4d %9s %9s %9s %5s  %s", minute,
                    admissionsPerSecond, outcomesPerSecond, resumes, millis(p50), millis(p99), millis(p999),
                    millis(max), millis(outcomeP99), behind, receipts, live, after, heap.collections(),
                    perReceipt(dbBytes, receipts), perReceipt(dirBytes, receipts),
                    Double.isNaN(ledgerCpu) ? String.format(Locale.ROOT, "?/%.0f%%", generatorCpu)
                            : String.format(Locale.ROOT, "%.0f%%/%.0f%%", ledgerCpu, generatorCpu),
                    warnLines < 0 ? "n/a" : warnLines + "/" + errorLines,
                    (health.equals("ok") ? "" : "health " + health + "; ") + (errors.isEmpty() ? "none" : errors));
        }

        String csv() {
            return String.join(",", Integer.toString(minute), at.toString(), number(admissionsPerSecond),
                    number(outcomesPerSecond), Long.toString(resumes), number(p50), number(p99), number(p999),
                    number(max), number(outcomeP99), Long.toString(behind), Long.toString(receipts), health,
                    Integer.toString(heap.collections()), Long.toString(heap.afterMin()),
                    Long.toString(heap.afterLast()), Long.toString(heap.live()), heap.liveFrom(),
                    Long.toString(dbBytes), Long.toString(dirBytes), number(ratio(dbBytes, receipts)),
                    number(ratio(dirBytes, receipts)), number(ledgerCpu), number(generatorCpu),
                    Long.toString(warnLines), Long.toString(errorLines),
                    "\"" + errors.toString().replace("\"", "\"\"") + "\"");
        }

        String json() {
            ObjectNode o = Canonical.JSON.createObjectNode();
            o.put("minute", minute);
            o.put("time", at.toString());
            putNumber(o, "admissionsPerSecond", admissionsPerSecond);
            putNumber(o, "outcomesPerSecond", outcomesPerSecond);
            o.put("resumes", resumes);
            putNumber(o, "p50Ms", p50);
            putNumber(o, "p99Ms", p99);
            putNumber(o, "p99_9Ms", p999);
            putNumber(o, "maxMs", max);
            putNumber(o, "outcomeP99Ms", outcomeP99);
            o.put("behind", behind);
            o.put("receipts", receipts);
            o.put("health", health);
            o.put("gcCollections", heap.collections());
            o.put("heapAfterGcMinBytes", heap.afterMin());
            o.put("heapAfterGcLastBytes", heap.afterLast());
            o.put("liveHeapBytes", heap.live());
            o.put("liveHeapFrom", heap.liveFrom());
            o.put("ledgerMvDbBytes", dbBytes);
            o.put("stateDirBytes", dirBytes);
            putNumber(o, "ledgerMvDbBytesPerReceipt", ratio(dbBytes, receipts));
            putNumber(o, "stateDirBytesPerReceipt", ratio(dirBytes, receipts));
            putNumber(o, "ledgerCpuPercent", ledgerCpu);
            putNumber(o, "generatorCpuPercent", generatorCpu);
            o.put("ledgerWarnLines", warnLines);
            o.put("ledgerErrorLines", errorLines);
            ObjectNode e = o.putObject("errors");
            errors.forEach(e::put);
            return o.toString();
        }

        private static double ratio(long bytes, long receipts) {
            return bytes < 0 || receipts <= 0 ? Double.NaN : (double) bytes / receipts;
        }

        private static String number(double d) {
            return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.3f", d);
        }

        private static void putNumber(ObjectNode o, String name, double d) {
            if (Double.isNaN(d)) {
                o.putNull(name);
            } else {
                o.put(name, Math.round(d * 1000) / 1000.0);
            }
        }
    }

    /** {@code --soak-log}: CSV when the file's name ends in {@code .csv}, else JSON lines; flushed every minute. */
    private static final class SoakLog implements Closeable {
        private final java.io.BufferedWriter out;
        private final boolean csv;

        SoakLog(Path file) throws IOException {
            csv = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv");
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
            if (csv) {
                out.write(MinuteLine.CSV_HEADER);
                out.newLine();
                out.flush();
            }
        }

        void write(MinuteLine line) throws IOException {
            out.write(csv ? line.csv() : line.json());
            out.newLine();
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
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
        String byThread = after.ledgerThreads.perCallSince(before.ledgerThreads, all.length);
        if (byThread != null) {
            System.out.println("ledger CPU by thread, us per call: " + byThread);
        }
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

    /** Prints the timeline; returns the calls of each second. */
    private long[] timeline(Edge[] edges) {
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
        long[] calls = new long[duration];
        for (int i = 0; i < duration; i++) {
            long[] sorted = seconds.get(i).stream().mapToLong(Long::longValue).sorted().toArray();
            calls[i] = sorted.length;
            System.out.printf(Locale.ROOT, "%6d %6d %8s %8s %8s%n", i, sorted.length, millis(percentile(sorted, 0.5)),
                    millis(percentile(sorted, 0.99)), millis(sorted.length == 0 ? Double.NaN
                            : sorted[sorted.length - 1] / 1e6));
        }
        return calls;
    }

    /**
     * The warm-up target's figure, for a closed loop on a spawned ledger with no warm-up and at least 60 s measured:
     * the admissions answered in the 5 s that end 30 s after the ledger's Ready ({@code /health} 200), per second,
     * against the steady rate, the median second of the window's last 30 s ({@code perSecond}: the timeline's calls).
     */
    private void warmUp(Edge[] edges, Window window, long[] perSecond) {
        long fromReady = window.measureStart - readyNanos;
        if (readyNanos == 0 || rate != null || warmup != 0 || duration < 60 || fromReady > 25_000_000_000L) {
            return;
        }
        long from = 25_000_000_000L - fromReady;
        long to = from + 5_000_000_000L;
        long inWindow = 0;
        for (Edge edge : edges) {
            for (int i = 0; i < edge.count; i++) {
                if (edge.dues[i] >= from && edge.dues[i] < to) {
                    inWindow++;
                }
            }
        }
        long[] last = Arrays.copyOfRange(perSecond, duration - 30, duration);
        Arrays.sort(last);
        double steady = (last[14] + last[15]) / 2.0;
        double early = inWindow / 5.0;
        System.out.printf(Locale.ROOT, "warm-up: %,.0f admissions/s from 25 to 30 s after Ready (the window began "
                + "%.1f s after it), steady %,.0f/s (median second of the last 30 s): %.2f of steady%n", early,
                fromReady / 1e9, steady, early / steady);
    }

    /** Every answer with a receipt is one more receipt in the ledger; {@code /health} counts them. */
    private void checkReceipts(String host, int port, long before, Edge[] edges) throws Exception {
        long initialized = sessionless ? 0 : sessions;
        long answered = initialized;
        for (Edge edge : edges) {
            answered += edge.answeredWithReceipt;
        }
        long after = healthReceipts(host, port);
        // With several nodes, the one asked folds what the others appended within a moment (it follows the log).
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
             !alsoUrls.isEmpty() && after - before < answered && System.nanoTime() < deadline; ) {
            Thread.sleep(100);
            after = healthReceipts(host, port);
        }
        System.out.printf(Locale.ROOT, "%ncheck: /health counted %,d receipts before and %,d after (+%,d); "
                + "answers with a receipt: %,d (%,d initialize + %,d calls%s)%s%n", before, after, after - before,
                answered, initialized, answered - initialized, outcomeFraction() > 0 ? " and outcomes" : "",
                after - before == answered ? "" : " -- MISMATCH (or another client wrote to this ledger)");
        if (state != null && Files.exists(state.resolve("ledger.mv.db"))) {
            long bytes = Files.size(state.resolve("ledger.mv.db"));
            System.out.printf(Locale.ROOT, "disk: ledger.mv.db is %,d bytes, %,.0f bytes per receipt (%,d receipts)%n",
                    bytes, (double) bytes / Math.max(1, after), after);
        }
    }

    /** The ledger's histograms, when the auditor's credential is at hand (a spawned ledger, or {@code --state}). */
    private LedgerMeters meters(String host, int port) {
        Path auditor = state == null ? null : state.resolve("credentials/auditor.token");
        if (auditor == null || !Files.isRegularFile(auditor)) {
            return null;
        }
        try {
            return LedgerMeters.scrape(host, port, Files.readString(auditor).strip());
        } catch (IOException e) {
            System.out.println("cannot read the ledger's /metrics: " + e.getMessage());
            return null;
        }
    }

    private long healthReceipts(String host, int port) throws IOException {
        Health health = health(host, port);
        if (health.status != 200 || health.receipts < 0) {
            throw new IllegalStateException("GET /health answered " + health.status + ": " + health.text);
        }
        return health.receipts;
    }

    /** {@code GET /health}: its status code, {@code status}, and {@code receipts} or {@code folded}/{@code of} (-1). */
    record Health(int status, String state, long receipts, long folded, long of, String text) {
    }

    /** The bytes of {@code GET /health}, which needs no credential, to the ledger named by {@code hostHeader}. */
    private static byte[] healthRequest(String hostHeader) {
        return ("GET /health HTTP/1.1\r\nHost: " + hostHeader + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    static Health health(String host, int port) throws IOException {
        try (Http1Connection connection = new Http1Connection(host, port)) {
            Response answer = connection.exchange(healthRequest(host + ":" + port));
            String text = answer.text();
            Matcher state = STATUS.matcher(text);
            return new Health(answer.status, state.find() ? state.group(1) : "?", number(RECEIPTS, text),
                    number(FOLDED, text), number(OF, text), text);
        }
    }

    private static Health healthOrNull(String host, int port) {
        try {
            return health(host, port);
        } catch (IOException e) {
            return null;
        }
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private String mode() {
        String loop = rate == null ? "closed loop" : String.format(Locale.ROOT, "open loop at %s/s", trim(rate));
        return sessionless ? loop + ", sessionless" : loop;
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
        return caller(edge, "2025-06-18").toString();
    }

    /** Who calls: the principal, the server, the protocol version and the edge (its id and this run's incarnation). */
    private ObjectNode caller(int edge, String protocolVersion) {
        ObjectNode body = Canonical.JSON.createObjectNode();
        body.put("principal", "alice");
        body.put("serverId", "pricing");
        body.put("protocolVersion", protocolVersion);
        ObjectNode edgeNode = body.putObject("edge");
        edgeNode.put("id", "load-edge-" + edge);
        edgeNode.put("incarnation", run);
        return body;
    }

    private String callBody(long k) {
        return call(Canonical.JSON.createObjectNode(), k);
    }

    /** A sessionless call (contract section 15) from edge {@code edge}: {@link #callBody} and who calls. */
    private String clientCallBody(long k, int edge) {
        return call(caller(edge, "2026-07-28"), k);
    }

    /** Call {@code k}'s members, added to {@code body}. */
    private String call(ObjectNode body, long k) {
        body.put("requestId", requestId(k));
        body.put("server", "pricing");
        body.put("tool", "quote");
        body.put("operation", "invoke");
        body.put("argumentsSha256", ARGUMENTS_SHA256);
        return body.toString();
    }

    private String requestId(long k) {
        return "load-" + run + "-" + k;
    }

    /** A resume by the edge (id and incarnation) that initialized the session: it marks no call unknown. */
    private String resumeBody(int edge) {
        return "{\"protocolVersion\":\"2025-06-18\",\"edge\":{\"id\":\"load-edge-" + edge
                + "\",\"incarnation\":\"" + run + "\"}}";
    }

    /** The spawned ledger's JVM options, or the command line of {@code --ledger-pid} from /proc. */
    private String ledgerCommandLine() {
        if (spawned != null) {
            return spawned.jvmOptionsDescription();
        }
        if (ledgerPid != null) {
            try {
                return "pid " + ledgerPid + ": " + Files.readString(Path.of("/proc", ledgerPid.toString(), "cmdline"))
                        .replace('\0', ' ').strip();
            } catch (IOException e) {
                return "pid " + ledgerPid + " (command line unknown: " + e.getMessage() + ")";
            }
        }
        return "unknown (give --ledger-pid or --spawn)";
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
        /** Calls sent with session affinity so far: which of its own sessions is next. */
        long affine;
        long admitted;
        long errorsOutside;
        long answeredWithReceipt;
        /** A soak's counts of the current minute; guarded by this edge. */
        Counts minute = new Counts();

        Edge(int index, Http1Connection connection) {
            this.index = index;
            this.connection = connection;
        }

        synchronized Counts swap() {
            Counts c = minute;
            minute = new Counts();
            return c;
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

    /** When a start answered: the first HTTP answer, the first {@code 503 starting}, {@code 200}, in seconds. */
    record StartTiming(double answeringSeconds, double startingSeconds, String lastStarting, double healthySeconds,
                       long receipts, long healthyNanos) {
    }

    /** A SIGTERM: seconds until the process exited, its status, and whether it printed {@code Stopped: ...}. */
    record Stop(double seconds, int exitStatus, boolean stoppedLine) {
    }

    /**
     * The packaged jar (a copy in the temporary directory) on a temporary state, as {@code serve} starts it; it can be
     * stopped (SIGTERM), killed and started again on the same state. Its output goes to {@code WORK/ledger-N.out}
     * (N counts the starts), its GC log (when asked) to {@code WORK/gc-N.log}. SIGTERM and the directory deleted on
     * close, unless kept.
     */
    static final class SpawnedLedger implements Closeable {
        /** Ledgers running now: a Ctrl-C or SIGTERM of the generator stops them (SIGTERM) instead of leaving them. */
        private static final java.util.Set<SpawnedLedger> RUNNING = ConcurrentHashMap.newKeySet();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                for (SpawnedLedger ledger : RUNNING) {
                    if (!ledger.process.isAlive()) {
                        continue;
                    }
                    ledger.process.destroy();
                    try {
                        ledger.process.waitFor(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    ledger.process.destroyForcibly();
                    System.err.println("stopped the spawned ledger; its directory is left: " + ledger.work);
                }
            }, "stop-spawned-ledgers"));
        }

        final Path jar;
        final Path policy;
        /** The java executable that runs the ledger. */
        final Path javaExecutable;
        final List<String> jvmOptions;
        final List<String> serveArgs;
        final boolean gcLogging;
        final boolean keep;
        final Path work;
        final Path stateDir;
        Process process;
        URI url;
        String edgeToken;
        Path output;
        Path gcLog;
        private int starts;

        private SpawnedLedger(Path jar, Path policy, Path java, List<String> jvmOptions, List<String> serveArgs,
                              boolean gcLogging, boolean keep, Path work) {
            this.jar = jar;
            this.policy = policy;
            this.javaExecutable = java;
            this.jvmOptions = List.copyOf(jvmOptions);
            this.serveArgs = List.copyOf(serveArgs);
            this.gcLogging = gcLogging;
            this.keep = keep;
            this.work = work;
            this.stateDir = work.resolve("state");
        }

        /**
         * A new temporary directory; without {@code policy}, {@link #SOAK_POLICY} written into it; without
         * {@code java}, the generator's own runtime runs the ledger.
         */
        static SpawnedLedger create(Path jar, Path policy, Path java, List<String> jvmOptions, List<String> serveArgs,
                boolean gcLogging, boolean keep)
                throws IOException {
            Path work = Files.createTempDirectory("ledger-load");
            // Every start (the restarts at the end of a soak too) runs this copy: a rebuild of the jar during the run
            // changes nothing.
            jar = Files.copy(jar, work.resolve("ledger-app.jar"));
            if (policy == null) {
                policy = work.resolve("soak-policy-ttl-86400.yaml");
                Files.writeString(policy, SOAK_POLICY);
                System.out.println("policy for the soak: " + policy + " (the example's tools with ttl 86400)");
            }
            return new SpawnedLedger(jar, policy,
                    java != null ? java : Path.of(System.getProperty("java.home"), "bin", "java"), jvmOptions,
                    serveArgs, gcLogging, keep, work);
        }

        String jvmOptionsDescription() {
            List<String> options = new ArrayList<>(jvmOptions);
            if (gcLogging) {
                options.add(LedgerWatch.xlogOption(work.resolve("gc-N.log")));
            }
            return jvmOptions.isEmpty() ? String.join(" ", options) + " (otherwise the JVM's defaults: G1, a heap of "
                    + "up to a quarter of the memory)" : String.join(" ", options);
        }

        /** Starts the ledger on {@link #stateDir} and waits until {@code GET /health} answers 200. */
        StartTiming start(Duration timeout) throws Exception {
            starts++;
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            output = work.resolve("ledger-" + starts + ".out");
            List<String> command = new ArrayList<>();
            command.add(javaExecutable.toString());
            command.addAll(jvmOptions);
            if (gcLogging) {
                gcLog = work.resolve("gc-" + starts + ".log");
                command.add(LedgerWatch.xlogOption(gcLog));
            }
            command.addAll(List.of("-jar", jar.toString(), "serve", "--state", stateDir.toString(),
                    "--listen", "127.0.0.1:" + port, "--policy", policy.toString()));
            command.addAll(serveArgs);
            System.out.println("spawning: " + String.join(" ", command));
            long t0 = System.nanoTime();
            process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            RUNNING.add(this);
            long deadline = t0 + timeout.toNanos();
            double answering = Double.NaN;
            double starting = Double.NaN;
            String lastStarting = "";
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the ledger exited with status " + process.exitValue()
                            + " before /health answered 200; the end of its output:\n" + tail(output, 40));
                }
                if (System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("/health did not answer 200 within " + timeout.toSeconds()
                            + " s (--start-timeout); the end of the ledger's output:\n" + tail(output, 40));
                }
                Health health;
                try {
                    health = health("127.0.0.1", port);
                } catch (IOException e) {
                    Thread.sleep(20);
                    continue;
                }
                double at = (System.nanoTime() - t0) / 1e9;
                if (Double.isNaN(answering)) {
                    answering = at;
                }
                if (health.status == 200) {
                    edgeToken = Files.readString(stateDir.resolve("credentials/edge.token")).strip();
                    url = URI.create("http://127.0.0.1:" + port);
                    return new StartTiming(answering, starting, lastStarting, at, health.receipts, t0
                            + (long) (at * 1e9));
                }
                if (health.state.equals("starting")) {
                    if (Double.isNaN(starting)) {
                        starting = at;
                    }
                    lastStarting = String.format(Locale.ROOT, "folded %,d of %,d", health.folded, health.of);
                } else if (health.text.contains("could not start")) {
                    process.destroyForcibly();
                    throw new IllegalStateException("the ledger could not start: " + health.text);
                }
                Thread.sleep(20);
            }
        }

        /** SIGTERM, and the wait for the process to exit (killed after 120 s). */
        Stop stop() throws Exception {
            long t0 = System.nanoTime();
            process.toHandle().destroy();
            boolean exited = process.waitFor(120, TimeUnit.SECONDS);
            if (!exited) {
                System.err.println("the spawned ledger did not stop within 120 s of SIGTERM; killing it");
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            RUNNING.remove(this);
            boolean stopped;
            try (Stream<String> lines = Files.lines(output, StandardCharsets.UTF_8)) {
                stopped = lines.anyMatch(l -> l.startsWith("Stopped: "));
            } catch (IOException | java.io.UncheckedIOException e) {
                stopped = false;
            }
            return new Stop(seconds, exited ? process.exitValue() : -1, stopped);
        }

        /** {@code kill -9}. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            RUNNING.remove(this);
        }

        @Override
        public void close() throws IOException {
            if (process != null && process.isAlive()) {
                try {
                    stop();
                } catch (Exception e) {
                    process.destroyForcibly();
                }
            }
            if (keep) {
                System.out.println("kept the spawned ledger's directory: " + work);
            } else {
                deleteTree(work);
            }
        }

        private static void deleteTree(Path dir) throws IOException {
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(path);
                }
            }
        }

        private static String tail(Path file, int lines) {
            try (Stream<String> all = Files.lines(file, StandardCharsets.UTF_8)) {
                List<String> list = all.toList();
                return String.join("\n", list.subList(Math.max(0, list.size() - lines), list.size()));
            } catch (IOException | java.io.UncheckedIOException e) {
                return "(unreadable: " + e + ")";
            }
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

    /**
     * CPU so far: this process, the ledger's (or -1), the machine's busy and total jiffies from /proc/stat, and the
     * ledger's by kind of thread (none without its pid).
     */
    private record Cpu(long wallNanos, long generatorNanos, long ledgerNanos, long machineBusy, long machineTotal,
                       ThreadCpu ledgerThreads) {
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
            return new Cpu(System.nanoTime(), OS.getProcessCpuTime(), ledger, busy, total,
                    ledgerPid == null ? new ThreadCpu(Map.of()) : ThreadCpu.of(ledgerPid));
        }

        double machineBusyShare(Cpu later) {
            return machineTotal < 0 || later.machineTotal <= machineTotal ? Double.NaN
                    : (double) (later.machineBusy - machineBusy) / (later.machineTotal - machineTotal);
        }
    }

    /** The {@code q} quantile of nanosecond latencies sorted ascending, in milliseconds; NaN when there are none. */
    static double percentile(long[] sorted, double q) {
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
