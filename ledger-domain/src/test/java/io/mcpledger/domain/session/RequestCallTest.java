package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.*;
import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The admission table of contract section 4: session-level checks, then first match wins. */
class RequestCallTest extends SessionFixture {
    private static final Duration MIN_1 = Duration.ofMinutes(1);
    private static final Duration MIN_2 = Duration.ofMinutes(2);

    @Test
    void aCallWithinTheCapabilityIsAdmitted() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "quote", MIN_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED, r -> r.request().equals("req-1")
                        && r.seq() == 2 && text(r.body(), "capability").equals("cap-1")
                        && text(r.body(), "policy").equals(QUOTE_AND_DISCOUNT.hash())
                        && text(r.body(), "argumentsSha256").equals(ARGS)
                        && text(r.body(), "tool").equals("quote") && text(r.body(), "operation").equals("invoke")))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof CallAnswer c && c.admitted()
                        && c.capabilityId().equals("cap-1") && c.receipt().kind() == ReceiptKind.CALL_ADMITTED));
    }

    @Test
    void aCallOnARevokedCapabilityIsRefusedCapabilityRevoked() {
        fixture.givenCommands(initialize(), new RevokeCapability(SESSION, null, at(MIN_1)))
                .when(call("req-1", "quote", MIN_2))
                .expectResultMessagePayloadMatching(callRefused("capability_revoked", "capability has been revoked: cap-1"))
                .expectEventsMatching(kinds(ReceiptKind.CALL_REFUSED));
    }

    @Test
    void revocationIsCheckedBeforeScope() {
        fixture.givenCommands(initialize(), new RevokeCapability(SESSION, null, at(MIN_1)))
                .when(call("req-1", "not-granted", MIN_2))
                .expectResultMessagePayloadMatching(callRefused("capability_revoked", "capability has been revoked: cap-1"));
    }

    @Test
    void aToolWithoutAGrantIsRefusedNotInScope() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "refund", MIN_1))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool refund on server pricing is not in capability scope"))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED, r ->
                        text(r.body(), "reason.code").equals("not_in_scope")
                                && text(r.body(), "reason.message").equals(
                                "requested tool refund on server pricing is not in capability scope")));
    }

    @Test
    void anOperationWithoutAGrantIsRefusedNotInScope() {
        fixture.givenCommands(initialize())
                .when(new RequestCall(SESSION, TOKEN, "req-1", "pricing", "quote", "subscribe", ARGS, null, at(MIN_1)))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"));
    }

    @Test
    void aToolTheCurrentPolicyNoLongerAllowsIsRefusedNotInScope() {
        fixture.givenCommands(initialize())
                .when(narrowTo(DISCOUNT_ONLY, call("req-1", "quote", MIN_1)))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED,
                        r -> text(r.body(), "policy").equals(DISCOUNT_ONLY.hash())));
    }

    @Test
    void aToolTheNarrowedPolicyStillAllowsIsAdmitted() {
        fixture.givenCommands(initialize())
                .when(narrowTo(DISCOUNT_ONLY, call("req-1", "discount", MIN_1)))
                .expectEventsMatching(kinds(ReceiptKind.CALL_ADMITTED));
    }

    @Test
    void withNoPolicyEveryCallIsRefused() {
        authority.policy = null;
        fixture.givenCommands(initialize())
                .when(call("req-1", "quote", MIN_1))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"));
    }

    @Test
    void aWildcardGrantCoversEveryToolOfItsServer() {
        authority.policy = ANY_PRICING_TOOL;
        fixture.givenCommands(initialize())
                .when(call("req-1", "anything", MIN_1))
                .expectEventsMatching(kinds(ReceiptKind.CALL_ADMITTED));
    }

    @Test
    void aCallAfterTheGrantsNotAfterIsRefusedCapabilityExpired() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "quote", Duration.ofSeconds(301)))
                .expectResultMessagePayloadMatching(callRefused("capability_expired",
                        "capability grant for tool quote on server pricing expired at 2026-11-30T07:05:00.000Z;"
                                + " resume the session to renew it"));
    }

    @Test
    void aCallExactlyAtNotAfterIsAdmitted() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "quote", Duration.ofSeconds(300)))
                .expectEventsMatching(kinds(ReceiptKind.CALL_ADMITTED));
    }

    @Test
    void scopeIsCheckedBeforeExpiry() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "refund", Duration.ofSeconds(301)))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool refund on server pricing is not in capability scope"));
    }

    @Test
    void aResumeRenewsAnExpiredGrant() {
        fixture.givenCommands(initialize(), resume(Duration.ofSeconds(301), EDGE_1))
                .when(call("req-1", "quote", Duration.ofSeconds(302)))
                .expectEventsMatching(kinds(ReceiptKind.CALL_ADMITTED));
    }

    @Test
    void aCallWithAnotherTokensTagIsSessionNotFoundAndAppendsNothing() {
        fixture.givenCommands(initialize())
                .when(new RequestCall(SESSION, OTHER_TOKEN, "req-1", "pricing", "quote", "invoke", ARGS, null, at(MIN_1)))
                .expectException(ledgerError(ErrorCode.SESSION_NOT_FOUND, "session not found"))
                .expectNoEvents();
    }

    @Test
    void aCallOnADeletedSessionIsSessionDeletedAndAppendsNothing() {
        fixture.givenCommands(initialize(), delete(MIN_1))
                .when(call("req-1", "quote", MIN_2))
                .expectException(ledgerError(ErrorCode.SESSION_DELETED, "session has been deleted"))
                .expectNoEvents();
    }

    @Test
    void aCallOnAnIdleSessionIs410AndRecordsTheExpiryAndTheRefusal() {
        fixture.givenCommands(initialize())
                .when(call("req-1", "quote", Duration.ofMinutes(31)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.SESSION_EXPIRED,
                        "MCP session expired and must be re-initialized", ReceiptKind.CALL_REFUSED))
                .expectEventsMatching(kinds(ReceiptKind.SESSION_EXPIRED, ReceiptKind.CALL_REFUSED))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED,
                        r -> text(r.body(), "reason.code").equals("session_expired")));
    }

    @Test
    void aCallOnAnExpiredSessionAppendsOnlyTheRefusal() {
        fixture.givenCommands(initialize(), resume(Duration.ofMinutes(31), EDGE_1))
                .when(call("req-1", "quote", Duration.ofMinutes(32)))
                .expectEventsMatching(kinds(ReceiptKind.CALL_REFUSED));
    }

    @Test
    void theSameRefusedCallOnAnExpiredSessionRepeatsItsReceipt() {
        fixture.givenCommands(initialize(), call("req-1", "quote", Duration.ofMinutes(31)))
                .when(call("req-1", "quote", Duration.ofMinutes(32)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.SESSION_EXPIRED,
                        "MCP session expired and must be re-initialized", ReceiptKind.CALL_REFUSED))
                .expectNoEvents();
    }

    @Test
    void aCallWithARevokedTokenIs403AndRecordsTheRefusal() {
        fixture.givenCommands(initialize())
                .when(revoked(call("req-1", "quote", MIN_1)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.TOKEN_REVOKED,
                        "the client token has been revoked", ReceiptKind.CALL_REFUSED))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED,
                        r -> text(r.body(), "reason.code").equals("token_revoked")));
    }

    @Test
    void theSameRequestAgainRepeatsTheAdmissionAndAppendsNothing() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(call("req-1", "quote", MIN_2))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof CallAnswer c && c.admitted()
                        && c.receipt().seq() == 2 && c.receipt().id().equals("rcpt-2")))
                .expectNoEvents();
    }

    @Test
    void theSameRequestAgainRepeatsTheAdmissionEvenAfterTheCapabilityWasRevoked() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1),
                        new RevokeCapability(SESSION, null, at(MIN_1)))
                .when(call("req-1", "quote", MIN_2))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof CallAnswer c && c.admitted()))
                .expectNoEvents();
    }

    @Test
    void theSameRefusedRequestAgainRepeatsTheRefusal() {
        fixture.givenCommands(initialize(), call("req-1", "refund", MIN_1))
                .when(call("req-1", "refund", MIN_2))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool refund on server pricing is not in capability scope"))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdWithOtherArgumentsIsAConflict() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(new RequestCall(SESSION, TOKEN, "req-1", "pricing", "quote", "invoke", ARGS2, null, at(MIN_2)))
                .expectException(ledgerError(ErrorCode.REQUEST_ID_CONFLICT, "requestId req-1 was already used in this"
                        + " session with a different server, tool, operation or argumentsSha256"))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdForAnotherToolIsAConflict() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1))
                .when(call("req-1", "discount", MIN_2))
                .expectException(ledgerError(ErrorCode.REQUEST_ID_CONFLICT, "requestId req-1 was already used in this"
                        + " session with a different server, tool, operation or argumentsSha256"));
    }

    @Test
    void aReplayAfterDeleteIsSessionDeleted() {
        fixture.givenCommands(initialize(), call("req-1", "quote", MIN_1), delete(MIN_2))
                .when(call("req-1", "quote", MIN_2))
                .expectException(ledgerError(ErrorCode.SESSION_DELETED, "session has been deleted"))
                .expectNoEvents();
    }

    @Test
    void theJsonrpcIdIsRecordedWhenGiven() {
        fixture.givenCommands(initialize())
                .when(new RequestCall(SESSION, TOKEN, "req-1", "pricing", "quote", "invoke", ARGS, JsonRpcId.text("42"),
                        at(MIN_1)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED,
                        r -> r.body().get("jsonrpcId").isTextual() && text(r.body(), "jsonrpcId").equals("42")));
    }

    @Test
    void anIntegerJsonrpcIdIsRecordedAsAnInteger() {
        fixture.givenCommands(initialize())
                .when(new RequestCall(SESSION, TOKEN, "req-1", "pricing", "quote", "invoke", ARGS,
                        JsonRpcId.integer(JsonRpcId.MAX_INTEGER), at(MIN_1)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED,
                        r -> r.body().get("jsonrpcId").isIntegralNumber()
                                && r.body().get("jsonrpcId").longValue() == 9_007_199_254_740_991L));
    }

    @Test
    void aJsonrpcIdIsAStringOrASafeInteger() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JsonRpcId.integer(JsonRpcId.MAX_INTEGER + 1))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> new JsonRpcId(com.fasterxml.jackson.databind.node.DoubleNode.valueOf(7.0)))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> new JsonRpcId(com.fasterxml.jackson.databind.node.BooleanNode.TRUE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private RequestCall revoked(RequestCall cmd) {
        authority.revoked.add(TokenRefs.of(TOKEN));
        return cmd;
    }

    private RequestCall narrowTo(io.mcpledger.domain.policy.PolicyDocument policy, RequestCall cmd) {
        authority.policy = policy;
        return cmd;
    }
}
