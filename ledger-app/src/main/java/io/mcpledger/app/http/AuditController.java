package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.storage.LedgerLog;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.ledger.Investigation;
import io.mcpledger.domain.log.TlogProof;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.SessionIds;
import io.mcpledger.domain.session.TokenRefs;
import io.mcpledger.query.DigestView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;

/** What auditors read: receipts by id with their inclusion proofs, the investigation of a call (contract section 10), the projection digest. */
@Requires(notEnv = Environments.EDGE)
@Controller("/v1")
class AuditController {
    private final LedgerEngine ledger;

    AuditController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    /**
     * A receipt with its log index, and once that entry is integrated, its inclusion proof in the latest checkpoint
     * and that checkpoint.
     */
    @EdgeEndpoint
    @Get("/receipts/{id:[^/]++}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> receipt(HttpRequest<?> request, @Nullable @Header(SessionController.CLIENT_TOKEN) String clientToken) {
        String id = RequestBody.requireIdentifier("receipt id", PathSegments.segment(request, 2));
        LedgerLog.Located located = visible(request, id, clientToken);
        long index = located.position();
        ObjectNode reply = Replies.putReceipt(Replies.object(), "receipt", located.receipt());
        reply.put("index", index);
        LogSequencer.Published checkpoint = ledger.log().latest();
        if (index < checkpoint.size()) {
            ObjectNode inclusion = reply.putObject("inclusion");
            inclusion.put("treeSize", checkpoint.size());
            LogController.putHashes(inclusion.putArray("hashes"), ledger.log().inclusionProof(index, checkpoint.size()));
            reply.put("checkpoint", checkpoint.note());
        }
        return Replies.ok(reply);
    }

    /** The same inclusion proof as a C2SP tlog-proof, for offline use; 409 until the entry is integrated. */
    @EdgeEndpoint
    @Get("/receipts/{id:[^/]++}/proof")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> proof(HttpRequest<?> request, @Nullable @Header(SessionController.CLIENT_TOKEN) String clientToken) {
        String id = RequestBody.requireIdentifier("receipt id", PathSegments.segment(request, 2));
        LedgerLog.Located located = visible(request, id, clientToken);
        long index = located.position();
        LogSequencer.Published checkpoint = ledger.log().latest();
        if (index >= checkpoint.size()) {
            return Replies.error(ErrorCode.NOT_INTEGRATED, "receipt " + id + " is log entry " + index
                    + ", not yet in a published checkpoint (size " + checkpoint.size() + "); it will be within one"
                    + " checkpoint interval", null).header("Retry-After", retryAfterSeconds());
        }
        TlogProof proof = new TlogProof(index, ledger.log().inclusionProof(index, checkpoint.size()), checkpoint.note());
        return LogController.text(proof.format());
    }

    /**
     * The receipt, when the caller may read it: auditors and operators read every receipt; an edge must send
     * {@code Client-Token-Sha256} and reads only the receipts of the sessions issued to that token and of its client
     * stream (contract sections 8 and 15), so another client's receipt, and a ledger-wide one (a policy's, a revocation's), is {@code 404} as if it did
     * not exist.
     */
    private LedgerLog.Located visible(HttpRequest<?> request, String id, String clientToken) {
        boolean edge = AuthFilter.byEdge(request);
        String token = edge ? SessionController.clientToken(clientToken) : null;
        LedgerLog.Located located = ledger.receipt(id);
        if (located == null || (edge && !isOwn(located.receipt(), token))) {
            throw notFound(id);
        }
        return located;
    }

    /** Whether the receipt belongs to a session issued to this client token, or to the token's client stream. */
    private static boolean isOwn(Receipt receipt, String clientTokenSha256) {
        if (receipt.client() != null) {
            return receipt.client().equals(TokenRefs.of(clientTokenSha256));
        }
        return receipt.session() != null && SessionIds.isIssuedTo(receipt.session(), clientTokenSha256);
    }

    private String retryAfterSeconds() {
        return Long.toString(Math.max(1, (ledger.checkpointInterval().toMillis() + 999) / 1_000));
    }

    private static LedgerException notFound(String id) {
        return new LedgerException(ErrorCode.RECEIPT_NOT_FOUND, "no committed receipt has id " + id);
    }

    /**
     * The verdict and timeline of a call, computed from the session's stored receipts by the same code the
     * offline verifier runs. {@code not_found} is a 200 answer, as the contract says.
     */
    @Get("/investigate/{requestId:[^/]++}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> investigate(HttpRequest<?> request, @Nullable @QueryValue String session,
                                     @Nullable @QueryValue String client) {
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 2));
        if (session != null && client != null) {
            throw RequestBody.invalid("name a session or a client, not both: a call belongs to one of them");
        }
        ledger.follow();
        if (client != null) {
            String tokenRef = ClientController.tokenRef("query parameter client", client);
            List<Receipt> receipts = ledger.clientReceipts(tokenRef);
            Investigation investigation = receipts.isEmpty() ? Investigation.notFound(null, requestId)
                    : Investigation.ofClient(receipts, requestId);
            return Replies.ok(investigation.toJson());
        }
        String target = session;
        if (target == null) {
            List<String> sessions = ledger.projector().sessionsWithRequest(requestId);
            List<String> clients = ledger.projector().clientsWithRequest(requestId);
            if (sessions.size() + clients.size() > 1) {
                throw RequestBody.invalid("requestId " + requestId + " was used in " + describe(sessions, "session")
                        + (sessions.isEmpty() || clients.isEmpty() ? "" : " and in ") + describe(clients, "client")
                        + "; name one with ?session=ID or ?client=TOKENREF");
            }
            if (!clients.isEmpty()) {
                return Replies.ok(Investigation.ofClient(ledger.clientReceipts(clients.get(0)), requestId).toJson());
            }
            target = sessions.isEmpty() ? null : sessions.get(0);
        } else {
            RequestBody.requireIdentifier("query parameter session", target);
        }
        List<Receipt> receipts = target == null ? List.of() : ledger.sessionReceipts(target);
        Investigation investigation = receipts.isEmpty() ? Investigation.notFound(target, requestId)
                : Investigation.of(receipts, requestId);
        return Replies.ok(investigation.toJson());
    }

    /** "2 sessions (a, b)", or nothing for none. */
    private static String describe(List<String> streams, String kind) {
        return streams.isEmpty() ? "" : streams.size() + " " + kind + (streams.size() == 1 ? "" : "s") + " ("
                + String.join(", ", streams) + ")";
    }

    @Get("/projections/digest")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> digest() {
        ledger.follow();
        DigestView digest = ledger.projector().digest();
        ObjectNode reply = Replies.object();
        reply.put("treeSize", digest.treeSize());
        reply.put("digest", digest.digest());
        return Replies.ok(reply);
    }
}
