package io.mcpledger.app.storage;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.principal.PrincipalRevoked;
import io.mcpledger.domain.receipt.InvalidReceiptException;
import io.mcpledger.domain.receipt.Receipt;
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
import java.util.Map;
import java.util.function.Function;
import org.axonframework.serialization.Converter;
import org.axonframework.serialization.SerializationException;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.SerializedType;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.axonframework.serialization.SimpleSerializedType;

/**
 * Stores an event that is nothing but its receipt as the receipt's exact JCS bytes: the signed line is the durable
 * truth, so the event table holds it once, unescaped, and reading it back is {@link Receipt#parse}. Every other object
 * (the policy event, which also carries its document; metadata; tokens) goes to the Jackson serializer. Events stored
 * before this format (Jackson JSON, no revision) are still read, so an older state directory opens as it was.
 */
public final class ReceiptSerializer implements Serializer {
    /** The payload revision that marks a payload as a receipt line. */
    public static final String RECEIPT_LINE = "receipt-line";

    /** Each event that is its receipt, rebuilt from the receipt: the stream id is in the receipt itself. */
    private static final Map<Class<?>, Function<Receipt, LedgerEvent>> FROM_RECEIPT = Map.ofEntries(
            Map.entry(SessionInitialized.class, r -> new SessionInitialized(r.session(), r)),
            Map.entry(SessionResumed.class, r -> new SessionResumed(r.session(), r)),
            Map.entry(SessionExpired.class, r -> new SessionExpired(r.session(), r)),
            Map.entry(SessionDeleted.class, r -> new SessionDeleted(r.session(), r)),
            Map.entry(CallAdmitted.class, r -> new CallAdmitted(r.session(), r)),
            Map.entry(CallRefused.class, r -> new CallRefused(r.session(), r)),
            Map.entry(CallOutcomeRecorded.class, r -> new CallOutcomeRecorded(r.session(), r)),
            Map.entry(CallResolved.class, r -> new CallResolved(r.session(), r)),
            Map.entry(CapabilityRevoked.class, r -> new CapabilityRevoked(r.session(), r)),
            Map.entry(PrincipalRevoked.class, r -> new PrincipalRevoked(r.bodyText("tokenRef"), r)));

    private final Serializer jackson;

    public ReceiptSerializer(Serializer jackson) {
        this.jackson = jackson;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> SerializedObject<T> serialize(Object object, Class<T> expectedRepresentation) {
        if (object instanceof LedgerEvent event && FROM_RECEIPT.containsKey(object.getClass())
                && isReceiptOf(event) && expectedRepresentation == byte[].class) {
            return (SerializedObject<T>) new SimpleSerializedObject<>(event.receipt().lineBytes(), byte[].class,
                    new SimpleSerializedType(object.getClass().getName(), RECEIPT_LINE));
        }
        return jackson.serialize(object, expectedRepresentation);
    }

    /** True when the event's own fields are what {@link #FROM_RECEIPT} reads back from its receipt. */
    private static boolean isReceiptOf(LedgerEvent event) {
        return event.equals(FROM_RECEIPT.get(event.getClass()).apply(event.receipt()));
    }

    @Override
    public <T> boolean canSerializeTo(Class<T> expectedRepresentation) {
        return jackson.canSerializeTo(expectedRepresentation);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S, T> T deserialize(SerializedObject<S> serialized) {
        if (!RECEIPT_LINE.equals(serialized.getType().getRevision())) {
            return jackson.deserialize(serialized);
        }
        Function<Receipt, LedgerEvent> event = FROM_RECEIPT.get(classForType(serialized.getType()));
        if (event == null) {
            throw new SerializationException("a receipt-line payload names " + serialized.getType().getName()
                    + ", which is not an event made of its receipt");
        }
        byte[] line = jackson.getConverter().convert(serialized.getData(), serialized.getContentType(), byte[].class);
        try {
            return (T) event.apply(Receipt.parse(new String(line, StandardCharsets.UTF_8)));
        } catch (InvalidReceiptException e) {
            throw new SerializationException("a stored receipt does not parse: " + e.getMessage(), e);
        }
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class classForType(SerializedType type) {
        return jackson.classForType(type);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public SerializedType typeForClass(Class type) {
        return jackson.typeForClass(type);
    }

    @Override
    public Converter getConverter() {
        return jackson.getConverter();
    }
}
