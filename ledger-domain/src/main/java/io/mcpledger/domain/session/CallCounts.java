package io.mcpledger.domain.session;

/**
 * What a stream (a session, or a client stream) counts of its calls, changed only by {@link CallFold}: the contract's
 * {@code calls {admitted, refused, completed, unknown, pending}}.
 */
abstract class CallCounts {
    long admitted;
    long refused;
    long completed;
    long unknown;
    long pending;

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
