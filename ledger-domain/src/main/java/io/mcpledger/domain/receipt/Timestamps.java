package io.mcpledger.domain.receipt;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** Receipt times: UTC, RFC 3339 with exactly three fractional digits. */
public final class Timestamps {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Timestamps() {
    }

    public static String format(Instant at) {
        return FORMAT.format(at);
    }

    /** Parses the receipt form; rejects any other shape so a receipt has one spelling of its time. */
    public static Instant parse(String text) {
        Instant at;
        try {
            at = Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not an RFC 3339 UTC time: " + text, e);
        }
        if (!format(at).equals(text)) {
            throw new IllegalArgumentException("time must be UTC with milliseconds, like 2026-11-30T07:01:02.345Z: " + text);
        }
        return at;
    }

    /** The precision receipts keep. */
    public static Instant truncate(Instant at) {
        return at.truncatedTo(ChronoUnit.MILLIS);
    }
}
