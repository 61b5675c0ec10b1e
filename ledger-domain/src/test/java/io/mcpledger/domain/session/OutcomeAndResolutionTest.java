package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Outcomes (edge) and resolutions (operator) of contract section 4. */
class OutcomeAndResolutionTest extends SessionFixture {
    private static final Duration MIN_1 = Duration.ofMinutes(1);
    private static final Duration MIN_2 = Duration.ofMinutes(2);
    private static final Duration MIN_3 = Duration.ofMinutes(3);

    @Test
    void anOutcomeForAnAdmittedCallIsRecorded() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(outcome("req-1", "ok", MIN_2))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_OUTCOME, r -> r.request().equals("req-1")
                        && text(r.body(), "status").equals("ok") && text(r.body(), "resultSha256").equals(RESULT)))
                .expectState(s -> assertThat(ResumeSessionTest.stateOf(s).completed()).isEqualTo(1));
    }

    @Test
    void anOutcomeForAnUnknownRequestIsCallNotFound() {
        fixture.givenCommands(initialize())
                .when(outcome("req-9", "ok", MIN_2))
                .expectException(ledgerError(ErrorCode.CALL_NOT_FOUND, "no call with requestId req-9 in this session"))
                .expectNoEvents();
    }

    @Test
    void anOutcomeForARefusedCallIsCallNotAdmitted() {
        fixture.givenCommands(initialize(), call("req-1", "refund", MIN_1))
                .when(outcome("req-1", "ok", MIN_2))
                .expectException(ledgerError(ErrorCode.CALL_NOT_ADMITTED, "request req-1 was refused, not admitted"))
                .expectNoEvents();
    }

    @Test
    void theSameFinalOutcomeAgainRepeatsItsReceipt() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), outcome("req-1", "ok", MIN_2))
                .when(outcome("req-1", "ok", MIN_3))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof SessionAnswer s
                        && s.receipt().kind() == ReceiptKind.CALL_OUTCOME && s.receipt().seq() == 3))
                .expectNoEvents();
    }

    @Test
    void aDifferentOutcomeAfterAFinalOneIsAConflict() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), outcome("req-1", "ok", MIN_2))
                .when(outcome("req-1", "error", MIN_3))
                .expectException(ledgerError(ErrorCode.OUTCOME_CONFLICT,
                        "request req-1 already has the final outcome ok with resultSha256 " + RESULT))
                .expectNoEvents();
    }

    @Test
    void anEdgeOutcomeForAnUnknownCallIsAConflict() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), resume(MIN_2, EDGE_2))
                .when(outcome("req-1", "ok", MIN_3))
                .expectException(ledgerError(ErrorCode.OUTCOME_CONFLICT,
                        "request req-1 has an unknown outcome; only an operator's resolution can settle it now"))
                .expectNoEvents();
    }

    @Test
    void theEdgeMayReportAnOutcomeAsUnknown() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(outcome("req-1", "unknown", MIN_2))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_OUTCOME, r -> text(r.body(), "status").equals("unknown")))
                .expectState(s -> assertThat(ResumeSessionTest.stateOf(s).unknown()).isEqualTo(1));
    }

    @Test
    void anOutcomeFromAnotherTokenIsSessionNotFound() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(new RecordOutcome(SESSION, OTHER_TOKEN, "req-1", "ok", null, null, at(MIN_2)))
                .expectException(ledgerError(ErrorCode.SESSION_NOT_FOUND, "session not found"))
                .expectNoEvents();
    }

    @Test
    void anOutcomeIsAcceptedAfterTheSessionWasDeleted() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), delete(MIN_2))
                .when(outcome("req-1", "error", MIN_3))
                .expectEventsMatching(kinds(ReceiptKind.CALL_OUTCOME));
    }

    @Test
    void anOutcomeIsAcceptedAfterTheSessionExpired() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), resume(Duration.ofMinutes(40), EDGE_1))
                .when(outcome("req-1", "ok", Duration.ofMinutes(41)))
                .expectEventsMatching(kinds(ReceiptKind.CALL_OUTCOME));
    }

    @Test
    void anOutcomeOnAnIdleSessionExpiresItFirst() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(outcome("req-1", "ok", Duration.ofMinutes(40)))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED, ReceiptKind.CALL_OUTCOME))
                .expectState(s -> assertThat(ResumeSessionTest.stateOf(s).status()).isEqualTo(SessionStatus.EXPIRED));
    }

    @Test
    void aResolutionOnAnIdleSessionExpiresItFirst() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), resume(MIN_2, EDGE_2))
                .when(new ResolveCall(SESSION, "req-1", "ok", "ran", at(Duration.ofMinutes(40))))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED, ReceiptKind.CALL_RESOLVED));
    }

    @Test
    void aRefusedResolutionOnAnIdleSessionAppendsNothing() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(new ResolveCall(SESSION, "req-1", "ok", "ran", at(Duration.ofMinutes(40))))
                .expectException(ledgerError(ErrorCode.CALL_NOT_UNKNOWN, "request req-1 is not unknown: its outcome is pending"))
                .expectNoEvents();
    }

    @Test
    void anOperatorResolvesAnUnknownCall() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), resume(MIN_2, EDGE_2))
                .when(new ResolveCall(SESSION, "req-1", "not_run", "checked the pricing log", at(MIN_3)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_RESOLVED, r -> text(r.body(), "status").equals("not_run")
                        && text(r.body(), "note").equals("checked the pricing log")))
                .expectState(s -> assertThat(ResumeSessionTest.stateOf(s).unknown()).isZero())
                .expectState(s -> assertThat(ResumeSessionTest.stateOf(s).completed()).isEqualTo(1));
    }

    @Test
    void resolvingAPendingCallIsCallNotUnknown() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(new ResolveCall(SESSION, "req-1", "ok", "n/a", at(MIN_3)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_UNKNOWN, "request req-1 is not unknown: its outcome is pending"))
                .expectNoEvents();
    }

    @Test
    void resolvingTwiceIsCallNotUnknown() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), resume(MIN_2, EDGE_2),
                        new ResolveCall(SESSION, "req-1", "ok", "ran", at(MIN_3)))
                .when(new ResolveCall(SESSION, "req-1", "ok", "ran", at(MIN_3)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_UNKNOWN, "request req-1 is not unknown: already resolved as ok"))
                .expectNoEvents();
    }

    @Test
    void resolvingAnUnknownRequestIsCallNotFound() {
        fixture.givenCommands(initialize())
                .when(new ResolveCall(SESSION, "req-9", "ok", "n/a", at(MIN_3)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_FOUND, "no call with requestId req-9 in this session"));
    }
}
