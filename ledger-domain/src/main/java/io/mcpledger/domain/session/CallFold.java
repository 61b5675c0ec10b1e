package io.mcpledger.domain.session;

import io.mcpledger.domain.receipt.Receipt;
import java.util.Set;

/**
 * The call receipts' transitions, shared by the two kinds of stream a call belongs to: a session ({@link SessionFold})
 * and a client stream ({@link ClientFold}, a call made without a session). A call is decided once ({@code
 * call.admitted} or {@code call.refused}, a refusal repeated for the same requestId is kept as it is); an admitted call
 * gets one outcome ({@code ok}, {@code error} or {@code unknown}), and an unknown one at most one operator's
 * resolution ({@code ok}, {@code error}, {@code not_run}). Anything else is a {@link FoldException}.
 */
final class CallFold {
    /** The statuses an operator's resolution may record (contract section 4). */
    private static final Set<String> RESOLUTIONS = Set.of("ok", "error", "not_run");

    private CallFold() {
    }

    /** Applies one call receipt to the stream's {@code calls} and {@code counts}; {@code incarnation} made the decision. */
    static void apply(Receipt r, CallBook calls, String incarnation, CallCounts counts) {
        String request = requireRequest(r);
        switch (r.kind()) {
            case CALL_ADMITTED -> {
                if (calls.decidedBefore(request)) {
                    throw new FoldException("request " + request + " is admitted after an earlier decision");
                }
                calls.decided(request, r, incarnation);
                counts.admit();
            }
            case CALL_REFUSED -> {
                if (calls.status(request) == null) {
                    calls.decided(request, r, incarnation);
                }
                counts.refuse();
            }
            case CALL_OUTCOME -> {
                CallStatus now = admittedStatus(calls, r, request);
                CallStatus next = CallStatus.ofOutcome(r.bodyText("status"));
                if (next == null) {
                    throw new FoldException("request " + request + " has outcome status '" + r.bodyText("status") + "'");
                }
                if (now != CallStatus.PENDING) {
                    throw new FoldException("request " + request + " already has outcome " + now);
                }
                calls.settled(request, next, r);
                counts.settle(next == CallStatus.UNKNOWN);
            }
            case CALL_RESOLVED -> {
                if (admittedStatus(calls, r, request) != CallStatus.UNKNOWN) {
                    throw new FoldException("request " + request + " is resolved but is not unknown");
                }
                String status = r.bodyText("status");
                if (!RESOLUTIONS.contains(status)) {
                    throw new FoldException("request " + request + " is resolved with status '" + status
                            + "'; only ok, error and not_run settle a call");
                }
                calls.settled(request, CallStatus.RESOLVED, r);
                counts.resolve();
            }
            default -> throw new FoldException(r.kind() + " is not a call receipt");
        }
    }

    private static CallStatus admittedStatus(CallBook calls, Receipt r, String request) {
        CallStatus status = calls.status(request);
        if (status == null || !status.admitted()) {
            throw new FoldException(r.kind() + " for request " + request + " which was not admitted");
        }
        return status;
    }

    private static String requireRequest(Receipt r) {
        if (r.request() == null) {
            throw new FoldException(r.kind() + " without a request id");
        }
        return r.request();
    }
}
