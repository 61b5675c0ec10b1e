package io.mcpledger.app.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Ed25519Pem;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.query.DigestView;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** What auditors read: receipts by id, the investigation of a call (spec section 10), the projection digest, the key. */
@Controller("/v1")
class AuditController {
    private final LedgerEngine ledger;

    AuditController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @Get("/receipts/{id}")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> receipt(@PathVariable String id) {
        RequestBody.requireIdentifier("receipt id", id);
        Receipt receipt = ledger.receipt(id).orElseThrow(() -> new LedgerException(ErrorCode.RECEIPT_NOT_FOUND,
                "no committed receipt has id " + id));
        return Replies.ok(Replies.putReceipt(Replies.object(), "receipt", receipt));
    }

    @Get("/projections/digest")
    HttpResponse<byte[]> digest() {
        DigestView digest = ledger.projection().digest();
        ObjectNode reply = Replies.object();
        reply.put("treeSize", digest.treeSize());
        reply.put("digest", digest.digest());
        return Replies.ok(reply);
    }

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
