package io.mcpledger.domain.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mcpledger.domain.receipt.Canonical;

/**
 * What a stream (a session, or a client stream) counts of its calls, changed only by {@link CallFold}: the contract's
 * {@code calls {admitted, refused, completed, unknown, pending}}. Readers see the counts; only this package changes
 * them.
 */
public abstract class CallCounts {
    long admitted;
    long refused;
    long completed;
    long unknown;
    long pending;

    public long admitted() {
        return admitted;
    }

    public long refused() {
        return refused;
    }

    public long completed() {
        return completed;
    }

    public long unknown() {
        return unknown;
    }

    public long pending() {
        return pending;
    }

    /** The contract's {@code calls} object: {@code {admitted, refused, completed, unknown, pending}}. */
    public ObjectNode callsJson() {
        ObjectNode calls = Canonical.JSON.createObjectNode();
        calls.put("admitted", admitted);
        calls.put("refused", refused);
        calls.put("completed", completed);
        calls.put("unknown", unknown);
        calls.put("pending", pending);
        return calls;
    }

    /** Reads the counts back from a {@code calls} object {@link #callsJson} wrote. */
    void readCounts(JsonNode calls) {
        admitted = calls.path("admitted").asLong();
        refused = calls.path("refused").asLong();
        completed = calls.path("completed").asLong();
        unknown = calls.path("unknown").asLong();
        pending = calls.path("pending").asLong();
    }

    void admit() {
        admitted++;
        pending++;
    }

    void refuse() {
        refused++;
    }

    /** An admitted call got its outcome: {@code unknown}, or final. */
    void settle(boolean unknownOutcome) {
        pending--;
        if (unknownOutcome) {
            unknown++;
        } else {
            completed++;
        }
    }

    /** An unknown call was resolved by an operator. */
    void resolve() {
        unknown--;
        completed++;
    }

    void copyCountsTo(CallCounts other) {
        other.admitted = admitted;
        other.refused = refused;
        other.completed = completed;
        other.unknown = unknown;
        other.pending = pending;
    }
}
