package io.mcpledger.app.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Ed25519Pem;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.ledger.Investigation;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.query.DigestView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;

/** What auditors read: receipts by id, the investigation of a call (spec section 10), the projection digest, the key. */
@Controller("/v1")
class AuditController {
    private final LedgerEngine ledger;

    AuditController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @EdgeEndpoint
    @Get("/receipts/{id:[^/]+}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> receipt(HttpRequest<?> request) {
        String id = RequestBody.requireIdentifier("receipt id", PathSegments.segment(request, 2));
        Receipt receipt = ledger.receipt(id).orElseThrow(() -> new LedgerException(ErrorCode.RECEIPT_NOT_FOUND,
                "no committed receipt has id " + id));
        return Replies.ok(Replies.putReceipt(Replies.object(), "receipt", receipt));
    }

    /**
     * The verdict and timeline of a call, computed from the session's stored receipts by the same code the
     * offline verifier runs. {@code not_found} is a 200 answer, as the contract says.
     */
    @Get("/investigate/{requestId:[^/]+}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> investigate(HttpRequest<?> request, @Nullable @QueryValue String session) {
        String requestId = RequestBody.requireIdentifier("requestId", PathSegments.segment(request, 2));
        String target = session;
        if (target == null) {
            List<String> sessions = ledger.projection().sessionsWithRequest(requestId);
            if (sessions.size() > 1) {
                throw RequestBody.invalid("requestId " + requestId + " was used in " + sessions.size() + " sessions ("
                        + String.join(", ", sessions) + "); name one with ?session=ID");
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

    @Get("/projections/digest")
    HttpResponse<byte[]> digest() {
        DigestView digest = ledger.projection().digest();
        ObjectNode reply = Replies.object();
        reply.put("treeSize", digest.treeSize());
        reply.put("digest", digest.digest());
        return Replies.ok(reply);
    }

    @PublicEndpoint
    @Get("/log/public-key")
    HttpResponse<byte[]> publicKey() {
        byte[] raw = ledger.state().signingKey().publicKey().raw();
        String origin = ledger.state().origin();
        ObjectNode reply = Replies.object();
        reply.put("origin", origin);
        reply.put("keyId", LogKeys.keyId(origin, raw));
        reply.put("pem", Ed25519Pem.publicKeyPem(raw));
        reply.put("vkey", LogKeys.verifierKey(origin, raw));
        return Replies.ok(reply);
    }
}
