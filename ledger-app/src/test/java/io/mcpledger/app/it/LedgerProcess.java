package io.mcpledger.app.it;

import io.mcpledger.app.demo.RestartablePorts;
import io.mcpledger.app.testing.TestIo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** The packaged {@code ledger-app} jar running as a child process, as a user starts it. */
final class LedgerProcess implements AutoCloseable {
    /**
     * Long enough for a start of CI's states, which fold only the log's tail but, after a kill, scan the whole file
     * to recover; a long run's large states may pass {@code -Dledger.startTimeout=SECONDS}.
     */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(Long.getLong("ledger.startTimeout", 60));

    final Process process;
    final int port;
    /** One client per process, so keep-alive connections are reused and die with the process they talk to. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    final List<String> stdout = new CopyOnWriteArrayList<>();
    final List<String> stderr = new CopyOnWriteArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    private LedgerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
        readers.add(TestIo.collectLines(process.getInputStream(), stdout));
        readers.add(TestIo.collectLines(process.getErrorStream(), stderr));
    }

    static Path jar() {
        String jar = System.getProperty("ledger.jar");
        if (jar == null) {
            throw new IllegalStateException("run through 'mvn verify': the ledger.jar property names the packaged jar");
        }
        return Path.of(jar);
    }

    static int freePort() throws IOException {
        return RestartablePorts.pick();
    }

    /** Runs a sub-command to completion (init, a refused serve) and returns the process. */
    static Process run(Path workDir, String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command(args)).directory(workDir.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("ledger-app " + String.join(" ", args) + " did not finish in 60 s");
        }
        return p;
    }

    /** Starts {@code serve} on a free port and waits for its Ready line. */
    static LedgerProcess serve(Path workDir, String... extraArgs) throws IOException, InterruptedException {
        return serve(workDir, List.of(), extraArgs);
    }

    /** The same with options for the ledger's JVM, such as {@code -Xmx}. */
    static LedgerProcess serve(Path workDir, List<String> jvmOptions, String... extraArgs)
            throws IOException, InterruptedException {
        int port = freePort();
        List<String> args = new ArrayList<>(List.of("serve", "--listen", "127.0.0.1:" + port));
        args.addAll(List.of(extraArgs));
        LedgerProcess ledger = new LedgerProcess(new ProcessBuilder(command(jvmOptions, args.toArray(String[]::new)))
                .directory(workDir.toFile()).start(), port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (ledger.stdout.stream().noneMatch(l -> l.startsWith("Ready: "))) {
            if (!ledger.process.isAlive() || System.nanoTime() > deadline) {
                ledger.process.destroyForcibly();
                throw new IllegalStateException("ledger did not start; stderr: " + ledger.stderr);
            }
            Thread.sleep(50);
        }
        return ledger;
    }

    private static List<String> command(String... args) {
        return command(List.of(), args);
    }

    private static List<String> command(List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar().toString()));
        command.addAll(List.of(args));
        return command;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path, null, null).GET());
    }

    /** A GET as an edge: {@code Authorization: Bearer token}, and {@code Client-Token-Sha256} when not null. */
    HttpResponse<String> get(String path, String bearer, String clientTokenSha256)
            throws IOException, InterruptedException {
        return send(request(path, bearer, clientTokenSha256).GET());
    }

    /** A POST of a JSON body, with the same headers as {@link #get(String, String, String)}. */
    HttpResponse<String> post(String path, String bearer, String clientTokenSha256, String json)
            throws IOException, InterruptedException {
        return send(request(path, bearer, clientTokenSha256).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** Any request: {@code body} null sends none; a JSON body otherwise. */
    HttpResponse<String> send(String method, String path, String bearer, String clientTokenSha256, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = request(path, bearer, clientTokenSha256);
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return send(request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The port it listens on. */
    int port() {
        return port;
    }

    /** The credential {@code init} wrote for {@code role} (edge, operator, auditor) under the default state directory. */
    static String token(Path workDir, String role) throws IOException {
        return Files.readString(workDir.resolve("state/ledger/credentials/" + role + ".token")).strip();
    }

    private HttpRequest.Builder request(String path, String bearer, String clientTokenSha256) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (bearer != null) {
            builder.header("Authorization", "Bearer " + bearer);
        }
        if (clientTokenSha256 != null) {
            builder.header("Client-Token-Sha256", clientTokenSha256);
        }
        return builder;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends SIGKILL, as {@code kill -9} does: no shutdown hook runs. Waits until the process is gone. */
    void kill() throws InterruptedException {
        // Through the handle, like terminate(): Process.destroyForcibly() would also close our ends of the pipes.
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("ledger did not die within 30 s of SIGKILL");
        }
        for (Thread reader : readers) {
            reader.join(5_000);
        }
    }

    /** Sends SIGTERM and waits for the process to end; the exit status (143, 128 + SIGTERM, once the hooks ran). */
    int terminate() throws InterruptedException {
        // Process.destroy() would also close our ends of its pipes and lose the last lines it prints.
        process.toHandle().destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("ledger did not stop within 30 s of SIGTERM");
        }
        for (Thread reader : readers) {
            reader.join(5_000);
        }
        return process.exitValue();
    }

    static String read(java.io.InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
