package io.mcpledger.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.log.Checkpoint;
import io.mcpledger.domain.log.InvalidProofException;
import io.mcpledger.domain.log.Merkle;
import io.mcpledger.domain.log.TlogProof;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ledger-verify receipt FILE}: one receipt's signature and, when given, its inclusion in a signed checkpoint. */
@Command(name = "receipt", mixinStandardHelpOptions = true,
        description = {"Verifies one receipt: a bare receipt (JSON), or a GET /v1/receipts/{id} answer. Checks its"
                + " keyId and signature and, when present (in the answer, or as a tlog-proof file given with"
                + " --proof), its inclusion proof against the checkpoint and the checkpoint's signature.",
            "Needs --key PEM or --vkey STR. Exit 0 valid, 1 invalid, 2 usage or I/O error."})
final class ReceiptCommand extends FilesCommand {
    @Parameters(index = "0", paramLabel = "FILE", description = "A receipt, or a GET /v1/receipts/{id} answer.")
    Path file;

    @Option(names = "--proof", paramLabel = "TLOG_PROOF",
            description = "A c2sp.org/tlog-proof@v1 file, as GET /v1/receipts/{id}/proof answers.")
    Path proof;

    /** An inclusion proof to check: where it came from, the entry index, the tree size it claims (or -1). */
    private record Inclusion(String source, long index, long treeSize, List<byte[]> hashes, String checkpoint) {
    }

    @Override
    int verify(TrustedKey key) throws Invalid {
        // Both files are read before either is judged: one that cannot be read is a usage error (exit 2) whatever.
        Inputs.Content receiptContent = Inputs.read(file, "receipt file");
        Inputs.Content proofContent = proof == null ? null : Inputs.read(proof, "proof file");
        String text = text(receiptContent, file);
        String proofText = proof == null ? null : text(proofContent, proof);
        return valid(check(key, text, proofText), key);
    }

    private record Checked(Receipt receipt, List<Inclusion> proofs, List<Checkpoint> checkpoints) {
    }

    private Checked check(TrustedKey key, String text, String proofText) throws Invalid {
        String what = file.toString();
        JsonNode tree;
        try {
            tree = Inputs.STRICT_JSON.readTree(text);
        } catch (IOException e) {
            throw new Invalid(what, "not one JSON value: " + message(e));
        }
        if (tree == null || !tree.isObject()) {
            throw new Invalid(what, "not a JSON object");
        }
        boolean answer = tree.path("receipt").isObject();
        JsonNode receiptNode = answer ? tree.get("receipt") : tree;
        Receipt receipt;
        try {
            receipt = Receipt.parse(Canonical.jcs(receiptNode));
        } catch (InvalidReceiptException | IllegalArgumentException e) {
            throw new Invalid(what, "not a valid receipt: " + e.getMessage());
        }
        String origin = receipt.ledger();
        if (key.name() != null && !key.name().equals(origin)) {
            throw new Invalid(what, "receipt " + receipt.id() + " is of the log '" + origin + "', but the key given is"
                    + " for '" + key.name() + "'");
        }
        String unsigned = TrustedKey.signatureProblem(receipt, key.keyId(origin), key.key());
        if (unsigned != null) {
            throw new Invalid(what, unsigned);
        }
        List<Inclusion> proofs = new ArrayList<>();
        if (answer && tree.has("inclusion")) {
            proofs.add(fromAnswer(tree, what));
        }
        if (proofText != null) {
            try {
                TlogProof tlog = TlogProof.parse(proofText);
                proofs.add(new Inclusion(proof.toString(), tlog.index(), -1, tlog.hashes(), tlog.checkpoint()));
            } catch (InvalidProofException e) {
                throw new Invalid(proof.toString(), "not a tlog-proof: " + e.getMessage());
            }
        }
        byte[] leaf = Merkle.leafHash(receipt.lineBytes());
        List<Checkpoint> checkpoints = new ArrayList<>();
        for (Inclusion p : proofs) {
            Checkpoint checkpoint;
            try {
                checkpoint = Checkpoint.open(p.checkpoint(), key.forOrigin(origin));
            } catch (InvalidProofException e) {
                throw new Invalid(p.source(), "its checkpoint does not verify: " + e.getMessage());
            }
            if (p.treeSize() >= 0 && p.treeSize() != checkpoint.size()) {
                throw new Invalid(p.source(), "the inclusion proof is for a tree of size " + p.treeSize()
                        + ", but the checkpoint's size is " + checkpoint.size());
            }
            try {
                Merkle.verifyInclusion(p.index(), checkpoint.size(), leaf, p.hashes(), checkpoint.root());
            } catch (InvalidProofException e) {
                throw new Invalid(p.source(), "receipt " + receipt.id() + " is not entry " + p.index() + " of the"
                        + " checkpoint's tree: " + e.getMessage());
            }
            checkpoints.add(checkpoint);
        }
        return new Checked(receipt, proofs, checkpoints);
    }

    static String message(IOException e) {
        return e instanceof com.fasterxml.jackson.core.JsonProcessingException json ? json.getOriginalMessage()
                : e.getMessage();
    }

    private static Inclusion fromAnswer(JsonNode answer, String what) throws Invalid {
        JsonNode inclusion = answer.get("inclusion");
        if (!answer.path("index").canConvertToLong() || !answer.path("index").isIntegralNumber()
                || answer.path("index").asLong() < 0) {
            throw new Invalid(what, "the answer's 'index' is missing or not a non-negative integer");
        }
        if (!inclusion.path("treeSize").isIntegralNumber() || inclusion.path("treeSize").asLong() < 1) {
            throw new Invalid(what, "the answer's 'inclusion.treeSize' is missing or not a positive integer");
        }
        if (!inclusion.path("hashes").isArray()) {
            throw new Invalid(what, "the answer's 'inclusion.hashes' is missing or not an array");
        }
        if (!answer.path("checkpoint").isTextual()) {
            throw new Invalid(what, "the answer has an inclusion proof but no 'checkpoint' text to check it against");
        }
        List<byte[]> hashes = hashes(inclusion.get("hashes"), what, "the answer's inclusion hash");
        return new Inclusion(what + " (its inclusion proof)", answer.get("index").asLong(),
                inclusion.get("treeSize").asLong(), hashes, answer.get("checkpoint").asText());
    }

    private int valid(Checked checked, TrustedKey key) {
        PrintWriter out = out();
        Receipt r = checked.receipt();
        if (json) {
            ObjectNode node = Output.object();
            node.put("valid", true);
            node.put("receipt", r.id());
            node.put("kind", r.kind().wire());
            node.put("ledger", r.ledger());
            node.put("included", !checked.proofs().isEmpty());
            if (!checked.proofs().isEmpty()) {
                node.put("index", checked.proofs().get(0).index());
                node.put("treeSize", checked.checkpoints().get(0).size());
            }
            node.put("key", key.source());
            Output.json(out, node);
            return Exit.OK;
        }
        out.printf("VALID: receipt %s (%s%s) of the log %s%n", r.id(), r.kind().wire(),
                r.session() == null ? "" : ", session " + r.session() + " seq " + r.seq(), r.ledger());
        out.printf("  signature   verified (keyId %s) with %s%n", r.keyId(), key.source());
        if (checked.proofs().isEmpty()) {
            out.println("  inclusion   no proof given: only the signature was checked (give a GET /v1/receipts/{id}"
                    + " answer with inclusion, or --proof)");
        }
        for (int i = 0; i < checked.proofs().size(); i++) {
            Inclusion p = checked.proofs().get(i);
            Checkpoint c = checked.checkpoints().get(i);
            out.printf("  inclusion   entry %d of the tree of size %d (from %s); the checkpoint's signature verified%n",
                    p.index(), c.size(), p.source());
        }
        out.flush();
        return Exit.OK;
    }
}
