package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.principal.PrincipalRevoked;
import io.mcpledger.domain.receipt.Canonical;
import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.receipt.ReceiptDraft;
import io.mcpledger.domain.receipt.ReceiptKind;
import io.mcpledger.domain.receipt.ReceiptSigner;
import io.mcpledger.domain.session.CallAdmitted;
import io.mcpledger.domain.session.CallOutcomeRecorded;
import io.mcpledger.domain.session.CallRefused;
import io.mcpledger.domain.session.CallResolved;
import io.mcpledger.domain.session.CapabilityRevoked;
import io.mcpledger.domain.session.SessionDeleted;
import io.mcpledger.domain.session.SessionExpired;
import io.mcpledger.domain.session.SessionInitialized;
import io.mcpledger.domain.session.SessionResumed;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.axonframework.serialization.SerializationException;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.json.JacksonSerializer;
import org.junit.jupiter.api.Test;

/** Events that are their receipt are stored as the receipt's exact line, read back equal, and older payloads too. */
class ReceiptSerializerTest {
    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final String SESSION = "mcp-" + "ab".repeat(16) + "-" + "cd".repeat(16);
    private static final ReceiptSigner SIGNER = new ReceiptSigner(SigningKey.fromSeed(new byte[32]), "ledger.test/1");

    private final Serializer jackson = JacksonSerializer.builder()
            .objectMapper(JsonMapper.builder().addModule(new JavaTimeModule()).build()).build();
    private final ReceiptSerializer serializer = new ReceiptSerializer(jackson);

    private static Receipt sessionReceipt(ReceiptKind kind, long seq) {
        ObjectNode body = Canonical.JSON.createObjectNode().put("note", "x");
        String request = kind.wire().startsWith("call.") ? "req-1" : null;
        return SIGNER.sign(new ReceiptDraft("rcpt-" + kind.ordinal(), kind, T0, SESSION, seq,
                seq == 1 ? null : "00".repeat(32), request, body));
    }

    private static List<LedgerEvent> receiptEvents() {
        Receipt revoked = SIGNER.sign(ReceiptDraft.ledgerWide("rcpt-p", ReceiptKind.PRINCIPAL_REVOKED, T0,
                Canonical.JSON.createObjectNode().put("tokenRef", "12".repeat(32))));
        return List.of(
                new SessionInitialized(SESSION, sessionReceipt(ReceiptKind.SESSION_INITIALIZED, 1)),
                new SessionResumed(SESSION, sessionReceipt(ReceiptKind.SESSION_RESUMED, 2)),
                new SessionExpired(SESSION, sessionReceipt(ReceiptKind.SESSION_EXPIRED, 3)),
                new SessionDeleted(SESSION, sessionReceipt(ReceiptKind.SESSION_DELETED, 4)),
                new CallAdmitted(SESSION, sessionReceipt(ReceiptKind.CALL_ADMITTED, 5)),
                new CallRefused(SESSION, sessionReceipt(ReceiptKind.CALL_REFUSED, 6)),
                new CallOutcomeRecorded(SESSION, sessionReceipt(ReceiptKind.CALL_OUTCOME, 7)),
                new CallResolved(SESSION, sessionReceipt(ReceiptKind.CALL_RESOLVED, 8)),
                new CapabilityRevoked(SESSION, sessionReceipt(ReceiptKind.CAPABILITY_REVOKED, 9)),
                new PrincipalRevoked("12".repeat(32), revoked));
    }

    @Test
    void everyEventThatIsItsReceiptIsStoredAsTheReceiptLineAndReadBackEqual() {
        for (LedgerEvent event : receiptEvents()) {
            SerializedObject<byte[]> stored = serializer.serialize(event, byte[].class);

            assertThat(new String(stored.getData(), StandardCharsets.UTF_8)).isEqualTo(event.receipt().line());
            assertThat(stored.getType().getName()).isEqualTo(event.getClass().getName());
            assertThat(stored.getType().getRevision()).isEqualTo(ReceiptSerializer.RECEIPT_LINE);
            assertThat((Object) serializer.deserialize(stored)).isEqualTo(event);
        }
    }

    @Test
    void anEventStoredAsJacksonJsonBeforeThisFormatIsStillRead() {
        for (LedgerEvent event : receiptEvents()) {
            SerializedObject<byte[]> older = jackson.serialize(event, byte[].class);

            assertThat(older.getType().getRevision()).isNull();
            assertThat((Object) serializer.deserialize(older)).isEqualTo(event);
        }
    }

    @Test
    void thePolicyEventCarriesItsDocumentSoItStaysJackson() {
        Receipt receipt = SIGNER.sign(ReceiptDraft.ledgerWide("rcpt-a", ReceiptKind.POLICY_ACTIVATED, T0,
                Canonical.JSON.createObjectNode().put("policy", "34".repeat(32))));
        PolicyActivated event = new PolicyActivated("policy", receipt, "{\"capabilities\":{}}");

        SerializedObject<byte[]> stored = serializer.serialize(event, byte[].class);

        assertThat(stored.getType().getRevision()).isNull();
        assertThat((Object) serializer.deserialize(stored)).isEqualTo(event);
    }

    @Test
    void anEventWhoseStreamIdIsNotItsReceiptsStaysJackson() {
        CallAdmitted odd = new CallAdmitted("another-stream", sessionReceipt(ReceiptKind.CALL_ADMITTED, 5));

        SerializedObject<byte[]> stored = serializer.serialize(odd, byte[].class);

        assertThat(stored.getType().getRevision()).isNull();
        assertThat((Object) serializer.deserialize(stored)).isEqualTo(odd);
    }

    @Test
    void aReceiptLinePayloadNamingAnotherClassIsRefused() {
        SerializedObject<byte[]> forged = new SimpleSerializedObject<>(
                sessionReceipt(ReceiptKind.CALL_ADMITTED, 5).lineBytes(), byte[].class,
                new SimpleSerializedType(PolicyActivated.class.getName(), ReceiptSerializer.RECEIPT_LINE));

        assertThatThrownBy(() -> serializer.deserialize(forged))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("not an event made of its receipt");
    }

    @Test
    void aReceiptLinePayloadThatIsNotAReceiptIsRefused() {
        SerializedObject<byte[]> broken = new SimpleSerializedObject<>(
                "{\"v\":1}".getBytes(StandardCharsets.UTF_8), byte[].class,
                new SimpleSerializedType(CallAdmitted.class.getName(), ReceiptSerializer.RECEIPT_LINE));

        assertThatThrownBy(() -> serializer.deserialize(broken))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("does not parse");
    }
}
