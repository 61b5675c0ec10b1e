package io.mcpledger.app.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.app.statedir.Role;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.app.statedir.StateException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What the demo's stories share: the narrator, the ledger they live against, the numbered steps, the checks that stop
 * a story with a {@link DemoFailure}, and the auditor's reads and offline checks of the exported bundle.
 */
abstract class DemoStory {
    private static final Duration CHECKPOINT_WAIT = Duration.ofSeconds(10);

    protected final Narrator say;
    protected final Path work;
    protected final Duration checkpointInterval;
    protected DemoLedger ledger;
    protected int step;

    DemoStory(PrintWriter out, Path work, Duration checkpointInterval, boolean verbose) {
        this.say = new Narrator(out, work, verbose);
        this.work = work;
        this.checkpointInterval = checkpointInterval;
    }

    /** Tells the whole story; answers the one-line summary, or throws {@link DemoFailure} at the first deviation. */
    public String tell() {
        try {
            return story();
        } catch (DemoFailure e) {
            throw e;
        } catch (IOException | StateException | RuntimeException e) {
            throw new DemoFailure(step, "the step to complete", e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure(step, "the step to complete", "an interrupt");
        } finally {
            stopAll();
        }
    }

    /** The story itself; answers its summary. */
    protected abstract String story() throws IOException, InterruptedException, StateException;

    /** Stops what the story started, whether it passed or not. */
    protected void stopAll() {
        if (ledger != null) {
            ledger.stop();
        }
    }

    /** Prints the request line, then sends it; {@code excerpt} says in a few words what the body holds. */
    protected Reply send(String actor, Role role, String method, String path, String clientTokenSha256,
                         String contentType, String body, String excerpt) throws IOException, InterruptedException {
        say.say(actor, method + " " + path + (excerpt == null ? "" : "  " + excerpt));
        return ledger.send(role, method, path, clientTokenSha256, contentType, body);
    }


    protected void step(String what) {
        step++;
        say.step(step, what);
    }


    /** GET /health; answers the receipts the ledger holds. */
    protected long health() throws IOException, InterruptedException {
        Reply reply = send("auditor", null, "GET", "/health", null, null, null, null);
        expectStatus(reply, 200, "status ok");
        long receipts = reply.json().path("receipts").asLong();
        long treeSize = reply.json().path("treeSize").asLong();
        answer(reply.status() + " status " + reply.json().path("status").asText() + ", " + receipts
                + " receipts, tree size " + treeSize);
        if (treeSize < receipts) {
            say.more("the tree lags the receipts by " + (receipts - treeSize) + ": a stored receipt joins the signed"
                    + " tree at the next checkpoint, every " + checkpointInterval.toMillis() + " ms here");
        }
        return receipts;
    }


    /** GET /v1/projections/digest as auditor. */
    protected JsonNode digest() throws IOException, InterruptedException {
        Reply reply = send("auditor", Role.AUDITOR, "GET", "/v1/projections/digest", null, null, null, null);
        expectStatus(reply, 200, "a digest");
        answer(reply.status() + " tree size " + reply.json().path("treeSize").asLong() + ", digest "
                + reply.json().path("digest").asText());
        return reply.json();
    }


    /** Waits until the published checkpoint covers {@code treeSize} entries, as it does within one interval. */
    protected void awaitCheckpoint(long treeSize) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + CHECKPOINT_WAIT.toNanos();
        Reply reply = send("auditor", Role.AUDITOR, "GET", "/v1/log/checkpoint", null, null, null, null);
        while (reply.status() == 200 && checkpointSize(reply) < treeSize && System.nanoTime() < deadline) {
            Thread.sleep(Math.max(50, checkpointInterval.toMillis() / 2));
            reply = ledger.send(Role.AUDITOR, "GET", "/v1/log/checkpoint", null, null, null);
        }
        Reply published = reply;
        expect(published.status() == 200 && checkpointSize(published) == treeSize,
                "a checkpoint of size " + treeSize + " within " + CHECKPOINT_WAIT.toSeconds() + " s",
                published::summary);
        answer(published.status() + " signed checkpoint of size " + treeSize + ":");
        say.quote(published.body());
    }


    /** The size a published checkpoint states, or -1 when the answer is not a checkpoint. */
    private static long checkpointSize(Reply checkpoint) {
        try {
            return Checkpoint.parseBody(checkpoint.body()).size();
        } catch (InvalidProofException e) {
            return -1;
        }
    }


    protected void replay(Path bundle, Path key, JsonNode live) throws IOException {
        ToolRun replay = ToolRun.ledgerVerify("replay", bundle.toString(), "--key", key.toString(), "--json");
        say.say("auditor", "$ " + replay.command());
        expect(replay.exit() == 0, "exit 0", () -> "exit " + replay.exit() + ": "
                + (replay.out() + replay.err()).strip());
        JsonNode replayed = Canonical.parse(replay.out());
        say.say("", "exit 0: " + replayed.path("sessions").size() + " sessions rebuilt from "
                + replayed.path("treeSize").asLong() + " entries, digest " + replayed.path("digest").asText());
        expect(replayed.path("treeSize").asLong() == live.path("treeSize").asLong()
                        && replayed.path("digest").asText().equals(live.path("digest").asText()),
                "the live digest " + live.path("digest").asText() + " at tree size " + live.path("treeSize").asLong(),
                () -> replayed.path("digest").asText() + " at tree size " + replayed.path("treeSize").asLong());
        say.more("equal to the live GET /v1/projections/digest at the same tree size");
    }


    protected void answer(String text) {
        say.say("ledger", text);
    }


    /** Prints a command line run in process and what it printed, indented. */
    protected void show(String actor, ToolRun run) {
        say.say(actor, "$ " + run.command());
        say.say("", "exit " + run.exit());
        if (!run.out().isBlank()) {
            say.quote(run.out());
        }
        if (!run.err().isBlank()) {
            say.quote(run.err());
        }
    }


    protected static String receiptLine(JsonNode receipt) {
        return receipt.path("kind").asText() + " " + receipt.path("id").asText()
                + (receipt.has("seq") ? ", session seq " + receipt.path("seq").asLong() : "");
    }


    protected void expect(boolean holds, String expected, Supplier<String> got) {
        if (!holds) {
            throw new DemoFailure(step, expected, got.get());
        }
    }


    protected void expectStatus(Reply reply, int status, String what) {
        expect(reply.status() == status, status + " with " + what, reply::summary);
    }


    protected JsonNode expectReceipt(Reply reply, String kind) {
        JsonNode receipt = reply.receipt();
        expect(kind.equals(receipt.path("kind").asText()), "a " + kind + " receipt", reply::summary);
        return receipt;
    }


    protected static String json(JsonNode node) {
        try {
            return Canonical.JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a request body did not serialize: " + e.getOriginalMessage(), e);
        }
    }
}
