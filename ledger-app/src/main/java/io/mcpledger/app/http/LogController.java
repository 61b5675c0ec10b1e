package io.mcpledger.app.http;

import io.mcpledger.app.Environments;
import io.micronaut.context.annotation.Requires;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.app.engine.LedgerEngine;
import io.mcpledger.app.log.LogSequencer;
import io.mcpledger.app.storage.StorageException;
import io.mcpledger.domain.crypto.Ed25519Pem;
import io.mcpledger.domain.crypto.LogKeys;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** The transparency log (contract section 8): the key, the latest checkpoint, the entries and consistency proofs. */
@Requires(notEnv = Environments.EDGE)
@Controller("/v1/log")
class LogController {
    static final MediaType TEXT = MediaType.of("text/plain; charset=utf-8");
    static final MediaType NDJSON = MediaType.of("application/x-ndjson");
    static final int DEFAULT_ENTRIES = 1_000;
    static final int MAX_ENTRIES = 10_000;

    private final LedgerEngine ledger;

    LogController(LedgerEngine ledger) {
        this.ledger = ledger;
    }

    @PublicEndpoint
    @Get("/public-key")
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

    @Get("/checkpoint")
    HttpResponse<byte[]> checkpoint() {
        return text(ledger.log().latest().note());
    }

    @Get("/entries")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> entries(@Nullable @QueryValue String start, @Nullable @QueryValue String limit)
            throws StorageException {
        long size = ledger.log().latest().size();
        long first = start == null ? 0 : number("start", start);
        long count = limit == null ? DEFAULT_ENTRIES : number("limit", limit);
        if (count < 1 || count > MAX_ENTRIES) {
            throw RequestBody.invalid("query parameter limit must be from 1 to " + MAX_ENTRIES + ", got " + limit);
        }
        if (first > size) {
            throw RequestBody.invalid("query parameter start " + first + " is past the end of the log, which has "
                    + size + " integrated entries");
        }
        StringBuilder body = new StringBuilder();
        for (String line : ledger.log().entries(first, (int) count)) {
            body.append(line).append('\n');
        }
        return HttpResponse.<byte[]>ok(body.toString().getBytes(StandardCharsets.UTF_8)).contentType(NDJSON);
    }

    @Get("/proof/consistency")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<byte[]> consistency(@Nullable @QueryValue String from, @Nullable @QueryValue String to) {
        LogSequencer.Published latest = ledger.log().latest();
        long m = number("from", required("from", from));
        long n = number("to", required("to", to));
        if (m < 1 || m > n || n > latest.size()) {
            throw RequestBody.invalid("query parameters from and to must satisfy 1 <= from <= to <= " + latest.size()
                    + " (the published tree size), got from=" + m + " and to=" + n);
        }
        ObjectNode reply = Replies.object();
        reply.put("from", m);
        reply.put("to", n);
        putHashes(reply.putArray("hashes"), ledger.log().consistencyProof(m, n));
        return Replies.ok(reply);
    }

    static HttpResponse<byte[]> text(String text) {
        return HttpResponse.<byte[]>ok(text.getBytes(StandardCharsets.UTF_8)).contentType(TEXT);
    }

    static void putHashes(ArrayNode array, List<byte[]> hashes) {
        hashes.forEach(hash -> array.add(Base64.getEncoder().encodeToString(hash)));
    }

    private static String required(String name, String value) {
        if (value == null) {
            throw RequestBody.invalid("query parameter " + name + " is required");
        }
        return value;
    }

    /** A non-negative decimal integer, written plainly (no sign, no leading zeros). */
    private static long number(String name, String value) {
        if (!value.matches("0|[1-9][0-9]*")) {
            throw RequestBody.invalid("query parameter " + name + " must be a non-negative integer, got \"" + value
                    + "\"");
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw RequestBody.invalid("query parameter " + name + " is too large, got " + value);
        }
    }
}
