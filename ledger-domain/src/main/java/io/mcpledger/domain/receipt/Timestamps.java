package io.mcpledger.domain.receipt;

import java.time.Instant;
import java.time.LocalDate;
import java.time.Month;
import java.time.Year;
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
        Instant fast = parseDigits(text);
        return fast != null ? fast : parseSlowly(text);
    }

    /**
     * The common case without a formatter (every line of the log has a time): {@code uuuu-MM-dd'T'HH:mm:ss.SSS'Z'} with
     * every field in range. Null for anything else, which {@link #parseSlowly} then accepts or explains.
     */
    static Instant parseDigits(String text) {
        if (text.length() != 24 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
                || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != '.'
                || text.charAt(23) != 'Z') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int second = digits(text, 17, 2);
        int millis = digits(text, 20, 3);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > Month.of(month).length(Year.isLeap(year))
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || millis < 0) {
            return null;
        }
        long days = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, millis * 1_000_000L);
    }

    /** The decimal value of text[from, from + count), or -1 unless all are ASCII digits. */
    private static int digits(String text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static Instant parseSlowly(String text) {
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
