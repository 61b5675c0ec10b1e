package io.mcpledger.app.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one stdio MCP server behind the edge (contract section 16): {@code COMMAND} started as a child process and
 * spoken to in newline-delimited JSON-RPC, as MCP's stdio transport says. The edge numbers its own requests, so the
 * ids of many clients never meet, and hands back each answer exactly as the server wrote it: the edge hashes a tool's
 * {@code result} as received. The child's stderr is the edge's. When the child dies every request in flight fails at
 * once ({@link Died}); {@link #restart} starts and initializes a new one.
 */
final class StdioServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioServer.class);
    /** The version the edge asks the stdio server for; the server answers with the one it speaks. */
    static final String PROTOCOL_VERSION = "2025-11-25";

    /** The stdio server exited, or its pipe broke, before it answered. */
    static final class Died extends IOException {
        Died(String message) {
            super(message);
        }
    }

    private final List<String> command;
    private final Duration startTimeout;
    private final AtomicLong ids = new AtomicLong();
    private volatile Child child;
    /** How many times a child was started: a restart asked for an older one is already done. */
    private volatile long generation;

    /** One running child: its process, its pending requests, and what its initialize answered. */
    private final class Child {
        final Process process;
        final OutputStream stdin;
        final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
        volatile JsonNode initialized;
        volatile boolean dead;

        Child(Process process) {
            this.process = process;
            this.stdin = process.getOutputStream();
        }

        void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (!line.isBlank()) {
                        receive(line);
                    }
                }
            } catch (IOException e) {
                LOG.debug("Reading the stdio server's output failed", e);
            } finally {
                die("the stdio server " + describe(command) + " exited" + exitStatus());
            }
        }

        private String exitStatus() {
            try {
                return process.waitFor(1, TimeUnit.SECONDS) ? " with status " + process.exitValue() : "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "";
            }
        }

        private void receive(String line) {
            JsonNode message;
            try {
                message = Canonical.JSON.readTree(line);
            } catch (IOException e) {
                LOG.warn("The stdio server wrote a line that is not JSON-RPC; ignored: {}", abbreviate(line));
                return;
            }
            JsonNode id = message.get("id");
            if (message.has("method")) {
                if (id != null) {
                    // A request of the server's (sampling, elicitation, roots): the edge relays none of them.
                    ObjectNode refusal = Canonical.JSON.createObjectNode().put("jsonrpc", "2.0");
                    refusal.set("id", id);
                    refusal.putObject("error").put("code", -32601)
                            .put("message", "the MCP edge does not relay requests from the server to its clients");
                    write(refusal);
                }
                return;
            }
            if (id != null && id.canConvertToLong()) {
                CompletableFuture<JsonNode> waiting = pending.remove(id.asLong());
                if (waiting != null) {
                    waiting.complete(message);
                    return;
                }
            }
            LOG.warn("The stdio server answered a request the edge did not send; ignored: {}", abbreviate(line));
        }

        void die(String why) {
            dead = true;
            for (Long id : pending.keySet()) {
                CompletableFuture<JsonNode> waiting = pending.remove(id);
                if (waiting != null) {
                    waiting.completeExceptionally(new Died(why));
                }
            }
        }

        synchronized void write(JsonNode message) {
            try {
                stdin.write(Canonical.JSON.writeValueAsBytes(message));
                stdin.write('\n');
                stdin.flush();
            } catch (IOException e) {
                die("the stdio server's input is closed: " + e.getMessage());
            }
        }
    }

    StdioServer(List<String> command, Duration startTimeout) {
        this.command = List.copyOf(command);
        this.startTimeout = startTimeout;
    }

    /** Starts the command and initializes it; an {@link IOException} when it cannot be started or initialized. */
    synchronized void start() throws IOException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new IOException("cannot start the stdio server " + describe(command) + ": " + e.getMessage(), e);
        }
        Child started = new Child(process);
        Thread reader = new Thread(started::read, "edge-stdio-reader");
        reader.setDaemon(true);
        reader.start();
        child = started;
        generation++;
        ObjectNode params = Canonical.JSON.createObjectNode().put("protocolVersion", PROTOCOL_VERSION);
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "mcp-ledger-edge").put("version", "0.1.0");
        JsonNode answer;
        try {
            answer = request("initialize", params, startTimeout);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new IOException("the stdio server " + describe(command) + " did not answer initialize within "
                    + startTimeout.toSeconds() + " s");
        }
        if (!answer.path("result").isObject()) {
            process.destroyForcibly();
            throw new IOException("the stdio server refused initialize: " + answer.path("error"));
        }
        started.initialized = answer.path("result");
        notify("notifications/initialized");
    }

    /** What the running server's initialize answered: its protocolVersion, capabilities, serverInfo, instructions. */
    JsonNode initializeResult() {
        return child.initialized;
    }

    /**
     * Sends a request and waits up to {@code timeout} for the whole answer message ({@code result} or {@code error}),
     * its id being the edge's. A {@link Died} when the server dies first; a {@link TimeoutException} when it is silent.
     */
    JsonNode request(String method, JsonNode params, Duration timeout) throws IOException, TimeoutException {
        Child current = child;
        if (current == null || current.dead) {
            throw new Died("the stdio server is not running");
        }
        long id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        current.pending.put(id, answer);
        ObjectNode message = Canonical.JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null && !params.isMissingNode() && !params.isNull()) {
            message.set("params", params);
        }
        current.write(message);
        if (current.dead) {
            current.die("the stdio server died");
        }
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the stdio server", e);
        } finally {
            current.pending.remove(id);
        }
    }

    /** Sends a notification without params. */
    void notify(String method) {
        Child current = child;
        if (current != null) {
            current.write(Canonical.JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method));
        }
    }

    /** Which start the running server is; a caller notes it before a request to restart that one alone. */
    long generation() {
        return generation;
    }

    /**
     * Stops the running server, failing what is in flight, and starts a new one; called after a call timed out or the
     * server died. Nothing happens when the server running is no longer start {@code seen}: another caller restarted
     * it already.
     */
    synchronized void restart(long seen, String why) throws IOException {
        if (generation != seen) {
            return;
        }
        Child current = child;
        if (current != null) {
            LOG.warn("Restarting the stdio server: {}", why);
            current.die(why);
            current.process.destroyForcibly();
        }
        start();
    }

    boolean alive() {
        Child current = child;
        return current != null && !current.dead && current.process.isAlive();
    }

    @Override
    public synchronized void close() {
        Child current = child;
        if (current != null) {
            current.die("the edge is stopping");
            try {
                current.stdin.close();
            } catch (IOException e) {
                // It may be gone already.
            }
            try {
                if (!current.process.waitFor(2, TimeUnit.SECONDS)) {
                    current.process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                current.process.destroyForcibly();
            }
        }
    }

    /** The command as a person would recognize it: whole when short, else its program's name and last argument. */
    static String describe(List<String> command) {
        String whole = String.join(" ", command);
        return whole.length() <= 80 || command.size() < 3 ? whole
                : java.nio.file.Path.of(command.get(0)).getFileName() + " ... " + command.get(command.size() - 1);
    }

    private static String abbreviate(String line) {
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }
}
