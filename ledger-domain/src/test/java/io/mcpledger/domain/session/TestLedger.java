package io.mcpledger.domain.session;

import static org.axonframework.test.matchers.Matchers.andNoMore;
import static org.axonframework.test.matchers.Matchers.exactSequenceOf;
import static org.axonframework.test.matchers.Matchers.payloadsMatching;
import static org.axonframework.test.matchers.Matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.ErrorCode;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.LedgerException;
import io.mcpledger.domain.crypto.Hex;
import io.mcpledger.domain.crypto.Sha256;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.InvalidPolicyException;
import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.hamcrest.Matcher;

/** Shared setup for aggregate tests: a test key, counter ids, a settable authority and handy commands. */
public final class TestLedger {
    /** The TEST key seed of the contract's test vectors (vectors/ledger-vectors.json). */
    public static final byte[] SEED = Hex.decode("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
    public static final String ORIGIN = "ledger.example/test";
    static final Instant T0 = Instant.parse("2026-11-30T07:00:00.000Z");
    static final Duration IDLE = Duration.ofMinutes(30);
    static final String TOKEN = Sha256.hex("client-token-1".getBytes(StandardCharsets.UTF_8));
    static final String OTHER_TOKEN = Sha256.hex("client-token-2".getBytes(StandardCharsets.UTF_8));
    static final String SESSION = SessionIds.issue(TOKEN, Hex.decode("00112233445566778899aabbccddeeff"));
    static final String ARGS = "e7ce68efa6b530c4d7681972dd73df03b80b5e0aac157285ef3ab56098f7246f";
    static final String ARGS2 = "2222222222222222222222222222222222222222222222222222222222222222";
    static final String RESULT = "1111111111111111111111111111111111111111111111111111111111111111";
    static final Edge EDGE_1 = new Edge("edge-a", "1");
    static final Edge EDGE_2 = new Edge("edge-a", "2");

    /** Grants quote and discount on pricing for 300 s, as in the vectors. */
    static final PolicyDocument QUOTE_AND_DISCOUNT = policy("""
            {"capabilities":{"default":{"tools":[
              {"server":"pricing","tool":"quote","operations":["invoke"],"ttl":300},
              {"server":"pricing","tool":"discount","operations":["invoke"],"ttl":300}]}}}""");
    static final PolicyDocument DISCOUNT_ONLY = policy("""
            {"capabilities":{"default":{"tools":[
              {"server":"pricing","tool":"discount","operations":["invoke"],"ttl":300}]}}}""");
    static final PolicyDocument ANY_PRICING_TOOL = policy("""
            {"capabilities":{"default":{"tools":[
              {"server":"pricing","tool":"*","operations":["invoke"],"ttl":300}]}}}""");

    /** An authority tests change between given and when. */
    public static final class SettableAuthority implements Authority {
        PolicyDocument policy;
        final Set<String> revoked = new HashSet<>();

        @Override
        public Optional<PolicyDocument> activePolicy() {
            return Optional.ofNullable(policy);
        }

        @Override
        public boolean isPrincipalRevoked(String tokenRef) {
            return revoked.contains(tokenRef);
        }
    }

    /** Sequential ids, so every receipt of a test is the same on every run. */
    static final class CounterIds implements Ids {
        private final AtomicLong receipts = new AtomicLong();
        private final AtomicLong capabilities = new AtomicLong();

        @Override
        public String receiptId(Instant at) {
            return "rcpt-" + receipts.incrementAndGet();
        }

        @Override
        public String capabilityId() {
            return "cap-" + capabilities.incrementAndGet();
        }
    }

    private TestLedger() {
    }

    static PolicyDocument policy(String json) {
        try {
            return PolicyDocument.fromJson(Canonical.parse(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InvalidPolicyException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static LedgerContext context(Authority authority) {
        return new LedgerContext(new ReceiptSigner(SigningKey.fromSeed(SEED), ORIGIN), authority, IDLE, new CounterIds());
    }

    static Instant at(Duration sinceT0) {
        return T0.plus(sinceT0);
    }

    static InitializeSession initialize() {
        return new InitializeSession(SESSION, TOKEN, "alice", "pricing", "2025-06-18", null, EDGE_1, T0);
    }

    static ResumeSession resume(Duration after, Edge edge) {
        return new ResumeSession(SESSION, TOKEN, "2025-06-18", edge, at(after));
    }

    static RequestCall call(String requestId, String tool, Duration after) {
        return new RequestCall(SESSION, TOKEN, requestId, "pricing", tool, "invoke", ARGS, null, at(after));
    }

    static RecordOutcome outcome(String requestId, String status, Duration after) {
        return new RecordOutcome(SESSION, TOKEN, requestId, status, "ok".equals(status) ? RESULT : null, null, at(after));
    }

    static DeleteSession delete(Duration after) {
        return new DeleteSession(SESSION, TOKEN, at(after));
    }

    /** Matches the applied events by receipt kind, in order and with nothing more. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Matcher<List<? super org.axonframework.eventhandling.EventMessage<?>>> kinds(ReceiptKind... kinds) {
        List<Matcher<?>> matchers = new ArrayList<>();
        for (ReceiptKind kind : kinds) {
            matchers.add(predicate(e -> e instanceof LedgerEvent le && le.receipt().kind() == kind));
        }
        matchers.add(andNoMore());
        return (Matcher) payloadsMatching(exactSequenceOf(matchers.toArray(new Matcher[0])));
    }

    /** Matches the applied events: the given kinds, and a predicate over the last receipt's body. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Matcher<List<? super org.axonframework.eventhandling.EventMessage<?>>> lastReceipt(
            ReceiptKind kind, Predicate<Receipt> check) {
        return (Matcher) payloadsMatching(predicate((List<Object> events) -> !events.isEmpty()
                && events.get(events.size() - 1) instanceof LedgerEvent le
                && le.receipt().kind() == kind && check.test(le.receipt())));
    }

    static Matcher<?> ledgerError(ErrorCode code, String message) {
        return predicate(e -> e instanceof LedgerException le && le.code() == code && le.getMessage().equals(message));
    }

    static Matcher<?> callRefused(String code, String message) {
        return predicate(a -> a instanceof CallAnswer c && !c.admitted() && c.refusal().code().equals(code)
                && c.refusal().message().equals(message) && c.receipt().kind() == ReceiptKind.CALL_REFUSED);
    }

    static Matcher<?> errorAnswer(ErrorCode code, String message, ReceiptKind receiptKind) {
        return predicate(a -> a instanceof ErrorAnswer e && e.code() == code && e.message().equals(message)
                && (receiptKind == null ? e.receipt() == null : e.receipt() != null && e.receipt().kind() == receiptKind));
    }

    static String text(JsonNode node, String path) {
        return node.at("/" + path.replace('.', '/')).asText();
    }
}
