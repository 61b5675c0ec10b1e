package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.TestLedger.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.axonframework.test.matchers.Matchers.predicate;

import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import java.time.Duration;
import java.util.List;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checks of contract section 15 on the client aggregate, table row by table row as {@link RequestCallTest} does
 * for sessions: the protocol version, the revoked token, the same requestId again, the current policy's grant for the
 * principal, then the outcomes, resolutions and an edge incarnation's unknowns.
 */
class ClientAggregateTest {
    private static final String V2026 = ProtocolVersions.SESSIONLESS;
    private static final String TOKEN_REF = TokenRefs.of(TOKEN);
    private static final Duration MIN_1 = Duration.ofMinutes(1);
    private static final Duration MIN_2 = Duration.ofMinutes(2);
    private static final Duration MIN_3 = Duration.ofMinutes(3);
    private static final Duration MIN_4 = Duration.ofMinutes(4);

    private FixtureConfiguration<ClientAggregate> fixture;
    private SettableAuthority authority;

    @BeforeEach
    void setUp() {
        authority = new SettableAuthority();
        authority.policy = QUOTE_AND_DISCOUNT;
        fixture = new AggregateTestFixture<>(ClientAggregate.class);
        fixture.registerInjectableResource(context(authority));
    }

    private static RequestClientCall call(String requestId, String tool, Duration after) {
        return call(requestId, "alice", V2026, EDGE_1, tool, ARGS, after);
    }

    private static RequestClientCall call(String requestId, String principal, String version, Edge edge, String tool,
                                          String args, Duration after) {
        return new RequestClientCall(TOKEN, requestId, principal, "pricing", version,
                new ClientInfo("claude-code", "2.1.0"), edge, "pricing", tool, "invoke", args,
                JsonRpcId.integer(7), at(after));
    }

    private static RecordClientOutcome outcome(String requestId, String status, Duration after) {
        return new RecordClientOutcome(TOKEN, requestId, status, "ok".equals(status) ? RESULT : null, null, at(after));
    }

    @Test
    void theFirstCallStartsTheStreamAtSeqOneWithTheGrantItUsed() {
        fixture.givenNoPriorActivity()
                .when(call("req-1", "quote", MIN_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED, r -> r.seq() == 1 && r.prev() == null
                        && TOKEN_REF.equals(r.client()) && r.session() == null && r.request().equals("req-1")
                        && text(r.body(), "principal").equals("alice")
                        && text(r.body(), "protocolVersion").equals(V2026)
                        && text(r.body(), "clientInfo.name").equals("claude-code")
                        && text(r.body(), "edge.id").equals("edge-a") && text(r.body(), "edge.incarnation").equals("1")
                        && text(r.body(), "policy").equals(QUOTE_AND_DISCOUNT.hash())
                        && text(r.body(), "grant.tool").equals("quote")
                        && text(r.body(), "grant.notAfter").equals("2026-11-30T07:06:00.000Z")
                        && r.body().path("jsonrpcId").asLong() == 7 && !r.body().has("capability")
                        && !r.body().has("reason")))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof CallAnswer c && c.admitted()
                        && c.capabilityId() == null));
    }

    @Test
    void theNextReceiptChainsToTheStreamsHead() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(call("req-2", "discount", MIN_2))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED, r -> r.seq() == 2 && r.prev() != null
                        && r.prev().length() == 64))
                .expectState(c -> assertThat(c.state().toJson().toString()).isEqualTo("{\"tokenRef\":\"" + TOKEN_REF
                        + "\",\"principal\":\"alice\",\"calls\":{\"admitted\":2,\"refused\":0,\"completed\":0,"
                        + "\"unknown\":0,\"pending\":2},\"seq\":2,\"head\":\"" + c.state().head() + "\"}"));
    }

    @Test
    void theGrantsOfTheCapabilityNamedAfterThePrincipalComeBeforeDefault() {
        authority.policy = policy("""
                {"capabilities":{"default":{"tools":[{"server":"pricing","tool":"discount","operations":["invoke"],"ttl":300}]},
                  "alice":{"tools":[{"server":"pricing","tool":"quote","operations":["invoke"],"ttl":60}]}}}""");
        fixture.givenNoPriorActivity()
                .when(call("req-1", "quote", MIN_1))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_ADMITTED,
                        r -> text(r.body(), "grant.notAfter").equals("2026-11-30T07:02:00.000Z")));
    }

    @Test
    void aVersionOfTheInitializeEraIsUnsupportedAndAppendsNothing() {
        fixture.givenNoPriorActivity()
                .when(call("req-1", "alice", "2025-06-18", EDGE_1, "quote", ARGS, MIN_1))
                .expectException(ledgerError(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, "unsupported protocolVersion"
                        + " 2025-06-18 for a call without a session; supported: 2026-07-28 (the initialize-era versions"
                        + " call through a session)"))
                .expectNoEvents();
    }

    @Test
    void theUnsupportedVersionIsCheckedBeforeTheRevokedToken() {
        authority.revoked.add(TOKEN_REF);
        fixture.givenNoPriorActivity()
                .when(call("req-1", "alice", "2025-11-25", EDGE_1, "quote", ARGS, MIN_1))
                .expectException(predicate(e -> e instanceof LedgerException le
                        && le.code() == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION))
                .expectNoEvents();
    }

    @Test
    void aRevokedTokenIsForbiddenWithARefusalReceipt() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(revokedThen(call("req-2", "quote", MIN_2)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.TOKEN_REVOKED,
                        "the client token has been revoked", ReceiptKind.CALL_REFUSED))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED, r -> r.seq() == 2
                        && text(r.body(), "reason.code").equals("token_revoked") && !r.body().has("grant")));
    }

    @Test
    void theRevokedTokenIsCheckedBeforeTheSameRequestIdAgain() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(revokedThen(call("req-1", "quote", MIN_2)))
                .expectResultMessagePayloadMatching(errorAnswer(ErrorCode.TOKEN_REVOKED,
                        "the client token has been revoked", ReceiptKind.CALL_REFUSED));
    }

    @Test
    void theSameRequestIdAfterARevocationRepeatsItsRefusal() {
        authority.revoked.add(TOKEN_REF);
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(call("req-1", "quote", MIN_2))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof ErrorAnswer e
                        && e.code() == ErrorCode.TOKEN_REVOKED && e.receipt().seq() == 1))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdAgainRepeatsTheFirstAnswerAndAppendsNothing() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), call("req-2", "discount", MIN_2))
                .when(call("req-1", "quote", MIN_3))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof CallAnswer c && c.admitted()
                        && c.receipt().seq() == 1))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdAgainRepeatsARefusalEvenWhenThePolicyNowAllowsIt() {
        authority.policy = DISCOUNT_ONLY;
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(withPolicy(QUOTE_AND_DISCOUNT, call("req-1", "quote", MIN_2)))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdWithOtherArgumentsIsAConflict() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(call("req-1", "alice", V2026, EDGE_1, "quote", ARGS2, MIN_2))
                .expectException(ledgerError(ErrorCode.REQUEST_ID_CONFLICT, "requestId req-1 was already used in this"
                        + " client's calls with a different server, tool, operation or argumentsSha256"))
                .expectNoEvents();
    }

    @Test
    void theSameRequestIdForAnotherToolIsAConflict() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(call("req-1", "discount", MIN_2))
                .expectException(predicate(e -> e instanceof LedgerException le
                        && le.code() == ErrorCode.REQUEST_ID_CONFLICT))
                .expectNoEvents();
    }

    @Test
    void aToolWithoutAGrantIsRefusedNotInScopeWithoutAGrant() {
        fixture.givenNoPriorActivity()
                .when(call("req-1", "refund", MIN_1))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool refund on server pricing is not in capability scope"))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED, r -> r.seq() == 1
                        && !r.body().has("grant") && text(r.body(), "policy").equals(QUOTE_AND_DISCOUNT.hash())));
    }

    @Test
    void theNarrowedPolicyRefusesAtOnceWhatItNoLongerGrants() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(withPolicy(DISCOUNT_ONLY, call("req-2", "quote", MIN_2)))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED,
                        r -> text(r.body(), "policy").equals(DISCOUNT_ONLY.hash())));
    }

    @Test
    void withNoPolicyACallIsRefusedAndItsBodyNamesNoPolicy() {
        authority.policy = null;
        fixture.givenNoPriorActivity()
                .when(call("req-1", "quote", MIN_1))
                .expectResultMessagePayloadMatching(callRefused("not_in_scope",
                        "requested tool quote on server pricing is not in capability scope"))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_REFUSED, r -> !r.body().has("policy")));
    }

    @Test
    void aCallNamingAnotherPrincipalForTheSameTokenIsAConflictAndAppendsNothing() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(call("req-2", "bob", V2026, EDGE_1, "quote", ARGS, MIN_2))
                .expectException(ledgerError(ErrorCode.PRINCIPAL_CONFLICT, "this client token stands for principal"
                        + " alice, not bob: a token's calls keep the principal of its first call"))
                .expectNoEvents();
    }

    @Test
    void anOutcomeForAnAdmittedCallIsRecordedInTheStream() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(outcome("req-1", "ok", MIN_2))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_OUTCOME, r -> r.seq() == 2
                        && TOKEN_REF.equals(r.client()) && text(r.body(), "status").equals("ok")
                        && text(r.body(), "resultSha256").equals(RESULT)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof ClientAnswer c
                        && c.client().path("calls").path("completed").asInt() == 1
                        && c.client().path("calls").path("pending").asInt() == 0));
    }

    @Test
    void anOutcomeForAClientWithoutCallsIsCallNotFound() {
        fixture.givenNoPriorActivity()
                .when(outcome("req-9", "ok", MIN_1))
                .expectException(ledgerError(ErrorCode.CALL_NOT_FOUND, "no call with requestId req-9 in this client's calls"))
                .expectNoEvents();
    }

    @Test
    void anOutcomeForAnUnknownRequestIsCallNotFound() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(outcome("req-9", "ok", MIN_2))
                .expectException(ledgerError(ErrorCode.CALL_NOT_FOUND, "no call with requestId req-9 in this client's calls"))
                .expectNoEvents();
    }

    @Test
    void anOutcomeForARefusedCallIsCallNotAdmitted() {
        fixture.givenCommands(call("req-1", "refund", MIN_1))
                .when(outcome("req-1", "ok", MIN_2))
                .expectException(ledgerError(ErrorCode.CALL_NOT_ADMITTED, "request req-1 was refused, not admitted"))
                .expectNoEvents();
    }

    @Test
    void theSameFinalOutcomeAgainRepeatsItsReceipt() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "ok", MIN_2))
                .when(outcome("req-1", "ok", MIN_3))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof ClientAnswer c
                        && c.receipt().kind() == ReceiptKind.CALL_OUTCOME && c.receipt().seq() == 2))
                .expectNoEvents();
    }

    @Test
    void aDifferentOutcomeAfterAFinalOneIsAConflict() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "ok", MIN_2))
                .when(outcome("req-1", "error", MIN_3))
                .expectException(ledgerError(ErrorCode.OUTCOME_CONFLICT,
                        "request req-1 already has the final outcome ok with resultSha256 " + RESULT))
                .expectNoEvents();
    }

    @Test
    void anEdgeCannotSettleAnUnknownOutcome() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "unknown", MIN_2))
                .when(outcome("req-1", "ok", MIN_3))
                .expectException(ledgerError(ErrorCode.OUTCOME_CONFLICT,
                        "request req-1 has an unknown outcome; only an operator's resolution can settle it now"))
                .expectNoEvents();
    }

    @Test
    void anOperatorResolvesAnUnknownOutcomeOnce() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "unknown", MIN_2))
                .when(new ResolveClientCall(TOKEN_REF, "req-1", "ok", "the quote was sent", at(MIN_3)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_RESOLVED, r -> r.seq() == 3
                        && text(r.body(), "status").equals("ok") && text(r.body(), "note").equals("the quote was sent")))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof ClientAnswer c
                        && c.client().path("calls").path("completed").asInt() == 1
                        && c.client().path("calls").path("unknown").asInt() == 0));
    }

    @Test
    void aSecondResolutionIsCallNotUnknown() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "unknown", MIN_2),
                        new ResolveClientCall(TOKEN_REF, "req-1", "ok", "sent", at(MIN_3)))
                .when(new ResolveClientCall(TOKEN_REF, "req-1", "error", "not sent", at(MIN_4)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_UNKNOWN, "request req-1 is not unknown: already resolved as ok"))
                .expectNoEvents();
    }

    @Test
    void aResolutionOfACompletedCallIsCallNotUnknown() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), outcome("req-1", "ok", MIN_2))
                .when(new ResolveClientCall(TOKEN_REF, "req-1", "error", "not sent", at(MIN_3)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_UNKNOWN, "request req-1 is not unknown: its outcome is ok"))
                .expectNoEvents();
    }

    @Test
    void aResolutionForAClientWithoutCallsIsCallNotFound() {
        fixture.givenNoPriorActivity()
                .when(new ResolveClientCall(TOKEN_REF, "req-1", "ok", "sent", at(MIN_1)))
                .expectException(ledgerError(ErrorCode.CALL_NOT_FOUND, "no call with requestId req-1 in this client's calls"))
                .expectNoEvents();
    }

    @Test
    void aNewIncarnationMarksUnknownOnlyItsEdgesPendingCallsOfEarlierIncarnations() {
        Edge otherEdge = new Edge("edge-b", "1");
        fixture.givenCommands(
                        call("req-1", "alice", V2026, EDGE_1, "quote", ARGS, MIN_1),      // pending, edge-a/1: settled
                        call("req-2", "alice", V2026, EDGE_1, "discount", ARGS, MIN_1),   // completed: kept
                        outcome("req-2", "ok", MIN_2),
                        call("req-3", "alice", V2026, otherEdge, "quote", ARGS, MIN_2),   // another edge: kept
                        call("req-4", "alice", V2026, EDGE_2, "quote", ARGS, MIN_2),      // this incarnation: kept
                        call("req-5", "alice", V2026, EDGE_1, "refund", ARGS, MIN_2),     // refused: nothing pending
                        call("req-6", "alice", V2026, EDGE_1, "discount", ARGS2, MIN_3))  // pending, edge-a/1: settled
                .when(new SettleEdgeCalls(TOKEN_REF, "edge-a", "2", at(MIN_4)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof List<?> l && l.size() == 2
                        && ((Receipt) l.get(0)).request().equals("req-1") && ((Receipt) l.get(1)).request().equals("req-6")))
                .expectEventsMatching(kinds(ReceiptKind.CALL_OUTCOME, ReceiptKind.CALL_OUTCOME))
                .expectState(c -> assertThat(c.state().toJson().path("calls").toString())
                        .isEqualTo("{\"admitted\":5,\"refused\":1,\"completed\":1,\"unknown\":2,\"pending\":2}"));
    }

    @Test
    void theUnknownOutcomeOfAnIncarnationSaysWhy() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(new SettleEdgeCalls(TOKEN_REF, "edge-a", "2", at(MIN_2)))
                .expectEventsMatching(lastReceipt(ReceiptKind.CALL_OUTCOME, r -> text(r.body(), "status").equals("unknown")
                        && text(r.body(), "detail").equals("admitted through edge edge-a by incarnation 1; the edge"
                        + " announced incarnation 2 before an outcome was recorded")));
    }

    @Test
    void theSameIncarnationAgainSettlesNothing() {
        fixture.givenCommands(call("req-1", "quote", MIN_1))
                .when(new SettleEdgeCalls(TOKEN_REF, "edge-a", "1", at(MIN_2)))
                .expectResultMessagePayloadMatching(predicate(a -> a instanceof List<?> l && l.isEmpty()))
                .expectNoEvents();
    }

    @Test
    void aCallSettledUnknownByAnIncarnationTakesNoLaterOutcomeFromTheEdge() {
        fixture.givenCommands(call("req-1", "quote", MIN_1), new SettleEdgeCalls(TOKEN_REF, "edge-a", "2", at(MIN_2)))
                .when(outcome("req-1", "ok", MIN_3))
                .expectException(predicate(e -> e instanceof LedgerException le
                        && le.code() == ErrorCode.OUTCOME_CONFLICT))
                .expectNoEvents();
    }

    /** Runs {@code command} with the token revoked from then on: given commands ran before the revocation. */
    private Object revokedThen(RequestClientCall command) {
        authority.revoked.add(TOKEN_REF);
        return command;
    }

    /** Runs {@code command} under {@code policy}: given commands ran under the one before. */
    private Object withPolicy(PolicyDocument policy, RequestClientCall command) {
        authority.policy = policy;
        return command;
    }
}
