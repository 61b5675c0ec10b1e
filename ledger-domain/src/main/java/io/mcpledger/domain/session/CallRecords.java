package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every call of one session with its receipts, in memory and in decision order: for logs read whole. */
public final class CallRecords implements CallBook {
    private final Map<String, CallRecord> calls = new LinkedHashMap<>();

    /** The record of requestId, or null when the session has no decision for it. */
    public CallRecord call(String requestId) {
        return calls.get(requestId);
    }

    /** Every record, in the order the calls were first decided. */
    public Collection<CallRecord> all() {
        return Collections.unmodifiableCollection(calls.values());
    }

    public int size() {
        return calls.size();
    }

    public void clear() {
        calls.clear();
    }

    /** Keeps a record read from elsewhere, so that later receipts of the call are recorded on it. */
    public void keep(CallRecord call) {
        calls.put(call.requestId(), call);
    }

    @Override
    public CallStatus status(String requestId) {
        CallRecord call = calls.get(requestId);
        return call == null ? null : call.status();
    }

    @Override
    public void decided(String requestId, Receipt decision, String incarnation) {
        calls.putIfAbsent(requestId, new CallRecord(requestId, decision, incarnation));
    }

    @Override
    public void settled(String requestId, CallStatus status, Receipt receipt) {
        calls.get(requestId).settle(status, receipt);
    }
}
