package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Duration;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.junit.jupiter.api.Test;

/** The resume table of contract section 4, row by row, first match wins. */
class ResumeSessionTest extends SessionFixture {

    @Test
    void resumeOfAnIdNeverIssuedFindsNoSession() {
        fixture.givenNoPriorActivity()
                .when(resume(Duration.ofMinutes(1), EDGE_1))
                .expectException(AggregateNotFoundException.class)
                .expectNoEvents();
    }

    @Test
    void resumeWithAnotherTokensTagIsSessionNotFoundAndAppendsNothing() {
        fixture.givenCommands(initialize())
                .when(new ResumeSession(SESSION, OTHER_TOKEN, "2025-06-18", EDGE_1, at(Duration.ofMinutes(1))))
                .expectException(ledgerError(ErrorCode.SESSION_NOT_FOUND, "session not found"))
                .expectNoEvents();
    }

    @Test
    void resumeOfADeletedSessionIsSessionDeleted() {
        fixture.givenCommands(initialize(), delete(Duration.ofMinutes(1)))
                .when(resume(Duration.ofMinutes(2), EDGE_1))
                .expectException(ledgerError(ErrorCode.SESSION_DELETED, "session has been deleted"))
                .expectNoEvents();
    }

    @Test
    void resumeOfADeletedSessionIsSessionDeletedEvenWhenItWouldBeIdle() {
        fixture.givenCommands(initialize(), delete(Duration.ofMinutes(1)))
                .when(resume(Duration.ofHours(5), EDGE_1))
                .expectException(ledgerError(ErrorCode.SESSION_DELETED, "session has been deleted"))
                .expectNoEvents();
    }

    @Test
    void resumeAfterTheIdleExpiryIs410AndAppendsSessionExpired() {
        fixture.givenCommands(initialize())
                .when(resume(Duration.ofMinutes(31), EDGE_1))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.SESSION_EXPIRED,
                        "MCP session expired and must be re-initialized", ReceiptKind.SESSION_EXPIRED))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED));
    }

    @Test
    void resumeExactlyAtTheIdleExpiryIsStillServed() {
        fixture.givenCommands(initialize())
                .when(resume(Duration.ofMinutes(30), EDGE_1))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_RESUMED));
    }

    @Test
    void resumeOfAnAlreadyExpiredSessionIs410AndAppendsNothingMore() {
        fixture.givenCommands(initialize(), resume(Duration.ofMinutes(31), EDGE_1))
                .when(resume(Duration.ofMinutes(32), EDGE_1))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.SESSION_EXPIRED,
                        "MCP session expired and must be re-initialized", null))
                .expectNoEvents();
    }

    @Test
    void resumeWithARevokedTokenIsTokenRevokedAndAppendsNothing() {
        fixture.givenCommands(initialize())
                .andGivenCurrentTime(T0)
                .when(withRevoked(resume(Duration.ofMinutes(1), EDGE_1)))
                .expectException(ledgerError(ErrorCode.TOKEN_REVOKED, "the client token has been revoked"))
                .expectNoEvents();
    }

    @Test
    void expiryIsCheckedBeforeTokenRevocation() {
        fixture.givenCommands(initialize())
                .when(withRevoked(resume(Duration.ofMinutes(31), EDGE_1)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.SESSION_EXPIRED,
                        "MCP session expired and must be re-initialized", ReceiptKind.SESSION_EXPIRED));
    }

    @Test
    void resumeWithAnUnsupportedProtocolVersionIs400AndAppendsNothing() {
        fixture.givenCommands(initialize())
                .when(new ResumeSession(SESSION, TOKEN, "2023-01-01", EDGE_1, at(Duration.ofMinutes(1))))
                .expectException(ledgerError(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                        "unsupported protocolVersion 2023-01-01; supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"))
                .expectNoEvents();
    }

    @Test
    void tokenRevocationIsCheckedBeforeTheProtocolVersion() {
        fixture.givenCommands(initialize())
                .when(withRevoked(new ResumeSession(SESSION, TOKEN, "2023-01-01", EDGE_1, at(Duration.ofMinutes(1)))))
                .expectException(ledgerError(ErrorCode.TOKEN_REVOKED, "the client token has been revoked"));
    }

    @Test
    void resumeAppendsSessionResumedWithAFreshCapabilityFromTheCurrentPolicy() {
        fixture.givenCommands(initialize())
                .when(resume(Duration.ofMinutes(10), EDGE_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_RESUMED, r ->
                        text(r.body(), "capability.id").equals("cap-2")
                                && r.body().path("capability").path("grants").size() == 2
                                && text(r.body(), "capability.grants.0.notAfter").equals("2026-11-30T07:15:00.000Z")
                                && text(r.body(), "policy").equals(QUOTE_AND_DISCOUNT.hash())
                                && r.seq() == 2))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof SessionAnswer s
                        && s.session().path("resumes").asLong() == 1
                        && s.session().path("capability").path("id").asText().equals("cap-2")));
    }

    @Test
    void resumeIssuesTheCapabilityFromTheNarrowedPolicy() {
        fixture.givenCommands(initialize())
                .when(withPolicy(DISCOUNT_ONLY, resume(Duration.ofMinutes(1), EDGE_1)))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_RESUMED, r ->
                        r.body().path("capability").path("grants").size() == 1
                                && text(r.body(), "capability.grants.0.tool").equals("discount")));
    }

    @Test
    void resumeWithoutAProtocolVersionMeans20250326() {
        fixture.givenCommands(initialize())
                .when(new ResumeSession(SESSION, TOKEN, null, EDGE_1, at(Duration.ofMinutes(1))))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_RESUMED,
                        r -> text(r.body(), "protocolVersion").equals("2025-03-26")));
    }

    @Test
    void resumeAfterCapabilityRevocationServesTheSessionWithoutAuthority() {
        fixture.givenCommands(initialize(), new RevokeCapability(SESSION, null, at(Duration.ofMinutes(1))))
                .when(resume(Duration.ofMinutes(2), EDGE_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_RESUMED, r -> !r.body().has("capability")))
                .expectState(s -> assertThat(stateOf(s).capabilityRevoked()).isTrue())
                .expectState(s -> assertThat(stateOf(s).capability().id()).isEqualTo("cap-1"));
    }

    @Test
    void resumeByANewEdgeIncarnationMarksItsPendingCallsUnknown() {
        fixture.givenCommands(initialize(), call("req-1", "quote", Duration.ofMinutes(1)),
                        call("req-2", "quote", Duration.ofMinutes(1)), outcome("req-2", "ok", Duration.ofMinutes(2)))
                .when(resume(Duration.ofMinutes(3), EDGE_2))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_RESUMED, ReceiptKind.CALL_OUTCOME))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_OUTCOME, r -> r.request().equals("req-1")
                        && text(r.body(), "status").equals("unknown")
                        && text(r.body(), "detail").equals("admitted under edge incarnation 1; the session was resumed"
                        + " by incarnation 2 before an outcome was recorded")))
                .expectState(s -> assertThat(stateOf(s).unknown()).isEqualTo(1))
                .expectState(s -> assertThat(stateOf(s).pending()).isZero());
    }

    @Test
    void resumeByTheSameIncarnationLeavesPendingCallsPending() {
        fixture.givenCommands(initialize(), call("req-1", "quote", Duration.ofMinutes(1)))
                .when(resume(Duration.ofMinutes(3), EDGE_1))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_RESUMED))
                .expectState(s -> assertThat(stateOf(s).pending()).isEqualTo(1));
    }

    @Test
    void resumeWithoutAnIncarnationDiffersFromEveryPresentOne() {
        fixture.givenCommands(initialize(), call("req-1", "quote", Duration.ofMinutes(1)))
                .when(resume(Duration.ofMinutes(3), null))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_RESUMED, ReceiptKind.CALL_OUTCOME));
    }

    private ResumeSession withRevoked(ResumeSession cmd) {
        authority.revoked.add(TokenRefs.of(TOKEN));
        return cmd;
    }

    private ResumeSession withPolicy(io.mcpledger.domain.policy.PolicyDocument policy, ResumeSession cmd) {
        authority.policy = policy;
        return cmd;
    }

    static SessionState stateOf(SessionAggregate aggregate) {
        try {
            var field = SessionAggregate.class.getDeclaredField("state");
            field.setAccessible(true);
            return (SessionState) field.get(aggregate);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
