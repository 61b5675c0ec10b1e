package io.mcpledger.domain.receipt;

import java.nio.charset.StandardCharsets;
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
    /** The spelling, kept for years outside 0000 to 9999 and as the reference {@link #format} is tested against. */
    static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    /** The days {@link #format} writes itself, years 0000 to 9999; {@link #FORMAT} spells the others. */
    private static final long FIRST_DAY = LocalDate.of(0, 1, 1).toEpochDay();
    private static final long LAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private Timestamps() {
    }

    public static String format(Instant at) {
        long seconds = at.getEpochSecond();
        long days = Math.floorDiv(seconds, 86_400);
        if (days < FIRST_DAY || days > LAST_DAY) {
            return FORMAT.format(at);
        }
        // Written digit by digit: several times per receipt (its time, the session's, each grant's notAfter), where
        // DateTimeFormatter's fraction printer alone allocated a BigDecimal and three strings.
        LocalDate date = LocalDate.ofEpochDay(days);
        int secondOfDay = (int) Math.floorMod(seconds, 86_400);
        byte[] text = new byte[24];
        put(text, 0, date.getYear(), 4);
        text[4] = '-';
        put(text, 5, date.getMonthValue(), 2);
        text[7] = '-';
        put(text, 8, date.getDayOfMonth(), 2);
        text[10] = 'T';
        put(text, 11, secondOfDay / 3_600, 2);
        text[13] = ':';
        put(text, 14, secondOfDay / 60 % 60, 2);
        text[16] = ':';
        put(text, 17, secondOfDay % 60, 2);
        text[19] = '.';
        put(text, 20, at.getNano() / 1_000_000, 3);
        text[23] = 'Z';
        return new String(text, StandardCharsets.US_ASCII);
    }

    /** {@code value} as {@code width} decimal digits at {@code text[from]}, leading zeros included. */
    private static void put(byte[] text, int from, int value, int width) {
        for (int i = from + width - 1; i >= from; i--) {
            text[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
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
