package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.*;
import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Initialize, DELETE, idle expiry and capability revocation (contract section 4). */
class SessionLifecycleTest extends SessionFixture {
    private static final Duration MIN_1 = Duration.ofMinutes(1);
    private static final Duration MIN_2 = Duration.ofMinutes(2);

    @Test
    void initializeAppendsTheSessionWithACapabilityFromThePolicy() {
        fixture.givenNoPriorActivity()
                .when(initialize())
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_INITIALIZED, r -> r.seq() == 1 && r.prev() == null
                        && r.session().equals(SESSION)
                        && text(r.body(), "principal").equals("alice")
                        && text(r.body(), "tokenRef").equals(TokenRefs.of(TOKEN))
                        && text(r.body(), "capability.id").equals("cap-1")
                        && text(r.body(), "capability.grants.1.tool").equals("discount")
                        && text(r.body(), "capability.grants.1.notAfter").equals("2026-11-30T07:05:00.000Z")
                        && text(r.body(), "edge.incarnation").equals("1")
                        && !r.line().contains(TOKEN)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof SessionAnswer s
                        && s.session().path("state").asText().equals("active")
                        && s.session().path("expiresAt").asText().equals("2026-11-30T07:30:00.000Z")));
    }

    @Test
    void initializeWithAnIdAlreadyInUseIsRefusedAndAppendsNothing() {
        fixture.givenCommands(initialize())
                .when(initialize())
                .expectException(predicate(e -> e instanceof IllegalStateException
                        && ((IllegalStateException) e).getMessage().equals("session id " + SESSION + " is already in use")))
                .expectNoEvents();
    }

    @Test
    void initializeWithNoPolicyIssuesACapabilityWithoutGrants() {
        authority.policy = null;
        fixture.givenNoPriorActivity()
                .when(initialize())
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_INITIALIZED,
                        r -> r.body().path("capability").path("grants").isEmpty() && !r.body().has("policy")));
    }

    @Test
    void initializeWithARevokedTokenIsTokenRevokedAndAppendsNothing() {
        authority.revoked.add(TokenRefs.of(TOKEN));
        fixture.givenNoPriorActivity()
                .when(initialize())
                .expectException(ledgerError(ErrorCode.TOKEN_REVOKED, "the client token has been revoked"))
                .expectNoEvents();
    }

    @Test
    void initializeWithAnUnsupportedProtocolVersionIs400() {
        fixture.givenNoPriorActivity()
                .when(new InitializeSession(SESSION, TOKEN, "alice", "pricing", "1.0", null, null, T0))
                .expectException(ledgerError(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                        "unsupported protocolVersion 1.0; supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"))
                .expectNoEvents();
    }

    @Test
    void deleteAppendsSessionDeleted() {
        fixture.givenCommands(initialize())
                .when(delete(MIN_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_DELETED, r -> r.body().isEmpty()));
    }

    @Test
    void deleteOfADeletedSessionIsSessionDeleted() {
        fixture.givenCommands(initialize(), delete(MIN_1))
                .when(delete(MIN_2))
                .expectException(ledgerError(ErrorCode.SESSION_DELETED, "session has been deleted"))
                .expectNoEvents();
    }

    @Test
    void deleteWithAnotherTokenIsSessionNotFound() {
        fixture.givenCommands(initialize())
                .when(new DeleteSession(SESSION, OTHER_TOKEN, at(MIN_1)))
                .expectException(ledgerError(ErrorCode.SESSION_NOT_FOUND, "session not found"))
                .expectNoEvents();
    }

    @Test
    void deleteOfAnExpiredSessionIsAllowed() {
        fixture.givenCommands(initialize(), resume(Duration.ofMinutes(31), EDGE_1))
                .when(delete(Duration.ofMinutes(32)))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_DELETED));
    }

    @Test
    void deleteOfAnIdleSessionRecordsTheExpiryFirst() {
        fixture.givenCommands(initialize())
                .when(delete(Duration.ofMinutes(31)))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED, ReceiptKind.SESSION_DELETED));
    }

    @Test
    void theReaperExpiresAnIdleSession() {
        fixture.givenCommands(initialize())
                .when(new ExpireSession(SESSION, at(Duration.ofMinutes(31))))
                .expectEventsMatching(lastReceipt(ReceiptKind.SESSION_EXPIRED, r ->
                        text(r.body(), "lastActivityAt").equals("2026-11-30T07:00:00.000Z")
                                && r.body().path("idleExpiryMs").asLong() == 1_800_000));
    }

    @Test
    void theReaperLeavesALiveSessionAlone() {
        fixture.givenCommands(initialize(), call("req-1", "quote", Duration.ofMinutes(20)))
                .when(new ExpireSession(SESSION, at(Duration.ofMinutes(31))))
                .expectNoEvents();
    }

    @Test
    void theReaperExpiresASessionOnlyOnce() {
        fixture.givenCommands(initialize(), new ExpireSession(SESSION, at(Duration.ofMinutes(31))))
                .when(new ExpireSession(SESSION, at(Duration.ofMinutes(32))))
                .expectNoEvents();
    }

    @Test
    void revokingTheCapabilityAppendsCapabilityRevoked() {
        fixture.givenCommands(initialize())
                .when(new RevokeCapability(SESSION, "cap-1", at(MIN_1)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CAPABILITY_REVOKED, r -> text(r.body(), "capability").equals("cap-1")));
    }

    @Test
    void revokingTheCapabilityOfAnIdleSessionExpiresItFirst() {
        fixture.givenCommands(initialize())
                .when(new RevokeCapability(SESSION, null, at(Duration.ofMinutes(40))))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED, ReceiptKind.CAPABILITY_REVOKED));
    }

    @Test
    void revokingAgainRepeatsTheRevocationReceipt() {
        fixture.givenCommands(initialize(), new RevokeCapability(SESSION, null, at(MIN_1)))
                .when(new RevokeCapability(SESSION, "cap-1", at(MIN_2)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof SessionAnswer s
                        && s.receipt().kind() == ReceiptKind.CAPABILITY_REVOKED && s.receipt().seq() == 2))
                .expectNoEvents();
    }

    @Test
    void revokingACapabilityTheSessionNeverHeldIsCapabilityNotFound() {
        fixture.givenCommands(initialize())
                .when(new RevokeCapability(SESSION, "cap-77", at(MIN_1)))
                .expectException(ledgerError(ErrorCode.CAPABILITY_NOT_FOUND, "capability cap-77 was never issued to this session"))
                .expectNoEvents();
    }

    @Test
    void revokingAnEarlierCapabilityRevokesTheSessionsAuthority() {
        fixture.givenCommands(initialize(), resume(MIN_1, EDGE_1))
                .when(new RevokeCapability(SESSION, "cap-1", at(MIN_2)))
                .expectEventsMatching(kinds(ReceiptKind.CAPABILITY_REVOKED));
    }
}
