package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.receipt.Receipt;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A new requestId costs one read of the history per command, not one per question: the handler asks, then the fold
 * of the decision it applies asks again. A negative answer never outlives the command that got it.
 */
class SessionCallsTest {
    /** A history with no calls that notes every question. */
    private static final class CountingHistory implements SessionHistory {
        final List<String> asked = new ArrayList<>();

        @Override
        public CallRecord call(String sessionId, String requestId) {
            asked.add(requestId);
            return null;
        }

        @Override
        public List<CallRecord> pendingCalls(String sessionId) {
            return List.of();
        }

        @Override
        public Receipt receipt(String receiptId) {
            return null;
        }

        @Override
        public String capabilityOwner(String capabilityId) {
            return null;
        }

        @Override
        public CallRecord clientCall(String tokenRef, String requestId) {
            asked.add("client " + requestId);
            return null;
        }

        @Override
        public List<CallRecord> clientPendingCalls(String tokenRef) {
            return List.of();
        }
    }

    @Test
    void aRequestIdTheHistoryLacksIsReadOnceInACommand() {
        CountingHistory history = new CountingHistory();
        SessionCalls calls = new SessionCalls("s");
        calls.readFrom(history);
        assertThat(calls.call("r-1")).isNull();
        assertThat(calls.status("r-1")).isNull();
        assertThat(calls.decidedBefore("r-1")).isFalse();
        assertThat(calls.call("r-2")).isNull();
        assertThat(history.asked).containsExactly("r-1", "r-2");
    }

    @Test
    void aClientStreamsCallsAreAskedOfItsOwnHistory() {
        CountingHistory history = new CountingHistory();
        SessionCalls calls = SessionCalls.ofClient("t");
        calls.readFrom(history);
        assertThat(calls.call("r-1")).isNull();
        assertThat(calls.status("r-1")).isNull();
        assertThat(history.asked).containsExactly("client r-1");
    }

    @Test
    void theNextCommandAndACommitAskTheHistoryAgain() {
        CountingHistory history = new CountingHistory();
        SessionCalls calls = new SessionCalls("s");
        calls.readFrom(history);
        calls.call("r-1");
        calls.readFrom(history);
        calls.call("r-1");
        calls.forget();
        calls.call("r-1");
        assertThat(history.asked).containsExactly("r-1", "r-1", "r-1");
    }
}
