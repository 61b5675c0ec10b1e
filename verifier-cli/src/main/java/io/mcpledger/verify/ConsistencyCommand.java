package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ledger-verify consistency OLD NEW PROOF}: the log of NEW extends the log of OLD; it only grew. */
@Command(name = "consistency", mixinStandardHelpOptions = true,
        description = {"Verifies that the log only grew between two checkpoints: both signatures, and the RFC 9162"
                + " consistency proof (the JSON answer of GET /v1/log/proof/consistency?from=M&to=N).",
            "Needs --key PEM or --vkey STR. Exit 0 consistent, 1 invalid, 2 usage or I/O error."})
final class ConsistencyCommand extends FilesCommand {
    @Parameters(index = "0", paramLabel = "OLD", description = "The older signed checkpoint.")
    Path older;

    @Parameters(index = "1", paramLabel = "NEW", description = "The newer signed checkpoint.")
    Path newer;

    @Parameters(index = "2", paramLabel = "PROOF", description = "The consistency proof, as the endpoint answers it.")
    Path proof;

    private static final Set<String> PROOF_FIELDS = Set.of("from", "to", "hashes");

    @Override
    int verify(TrustedKey key) throws Invalid {
        // Every file is read before any is judged: a file that cannot be read is a usage error (exit 2) whatever the
        // others hold.
        Inputs.Content oldText = Inputs.read(older, "checkpoint");
        Inputs.Content newText = Inputs.read(newer, "checkpoint");
        Inputs.Content proofContent = Inputs.read(proof, "proof file");
        Checkpoint from = open(older, oldText, key);
        Checkpoint to = open(newer, newText, key);
        String proofText = text(proofContent, proof);
        if (!from.origin().equals(to.origin())) {
            throw new Invalid(newer.toString(), "it is of the log '" + to.origin() + "', but " + older + " is of '"
                    + from.origin() + "'");
        }
        check(from, to, proofText);
        PrintWriter out = out();
        if (json) {
            ObjectNode node = Output.object();
            node.put("valid", true);
            node.put("origin", from.origin());
            node.put("from", from.size());
            node.put("to", to.size());
            node.put("key", key.source());
            Output.json(out, node);
        } else {
            out.printf("VALID: the log %s only grew, from size %d to %d%n", from.origin(), from.size(), to.size());
            out.printf("  checkpoints both signatures verified with %s%n", key.source());
            out.println("  proof       the RFC 9162 consistency proof holds: the older tree is a prefix of the newer");
            out.flush();
        }
        return Exit.OK;
    }

    private static Checkpoint open(Path file, Inputs.Content content, TrustedKey key) throws Invalid {
        String text = text(content, file);
        String origin = key.name() != null ? key.name() : text.substring(0, Math.max(0, text.indexOf('\n')));
        try {
            return Checkpoint.open(text, key.forOrigin(origin));
        } catch (InvalidProofException e) {
            throw new Invalid(file.toString(), "the checkpoint does not verify: " + e.getMessage());
        }
    }

    private void check(Checkpoint from, Checkpoint to, String proofText) throws Invalid {
        String what = proof.toString();
        JsonNode tree;
        try {
            tree = Inputs.STRICT_JSON.readTree(proofText);
        } catch (IOException e) {
            throw new Invalid(what, "not one JSON value: " + ReceiptCommand.message(e));
        }
        if (tree == null || !tree.isObject()) {
            throw new Invalid(what, "not a JSON object {\"from\", \"to\", \"hashes\"}");
        }
        for (Iterator<String> names = tree.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!PROOF_FIELDS.contains(name)) {
                throw new Invalid(what, "unknown field '" + name + "'; a proof has from, to and hashes");
            }
        }
        if (!tree.path("from").isIntegralNumber() || !tree.path("to").isIntegralNumber()
                || !tree.path("hashes").isArray()) {
            throw new Invalid(what, "'from' and 'to' must be integers and 'hashes' an array");
        }
        long m = tree.get("from").asLong();
        long n = tree.get("to").asLong();
        if (m != from.size() || n != to.size()) {
            throw new Invalid(what, "the proof is from size " + m + " to " + n + ", but the checkpoints are of sizes "
                    + from.size() + " and " + to.size());
        }
        List<byte[]> hashes = hashes(tree.get("hashes"), what, "the hash");
        if (from.size() > to.size()) {
            throw new Invalid(what, "the older checkpoint (size " + from.size() + ") is larger than the newer (size "
                    + to.size() + "): a log never shrinks");
        }
        if (from.size() == 0) {
            // Every log extends the empty one; the signed empty root must still be the empty tree's.
            if (!hashes.isEmpty() || !Arrays.equals(from.root(), Merkle.emptyRoot())) {
                throw new Invalid(what, "from the empty tree the proof is empty and the root is the empty tree's");
            }
            return;
        }
        try {
            Merkle.verifyConsistency(from.size(), to.size(), hashes, from.root(), to.root());
        } catch (InvalidProofException e) {
            throw new Invalid(what, "the consistency proof does not hold: " + e.getMessage());
        }
    }
}
