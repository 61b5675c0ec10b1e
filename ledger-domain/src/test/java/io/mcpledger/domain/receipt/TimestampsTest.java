package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The digit-by-digit reading and writing of receipt times agree with {@link java.time.format.DateTimeFormatter}: the reading accepts
 * exactly what the formatter's round trip accepts, the writing spells every instant as the formatter does.
 */
class TimestampsTest {
    /** The formatter's answer: the instant, or null when the text is refused. */
    private static Instant reference(String text) {
        try {
            Instant at = Instant.parse(text);
            return Timestamps.FORMAT.format(at).equals(text) ? at : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Instant parsed(String text) {
        try {
            return Timestamps.parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Provide
    Arbitrary<String> times() {
        Arbitrary<String> two = Arbitraries.integers().between(0, 99).map(i -> String.format("%02d", i));
        Arbitrary<String> four = Arbitraries.of(0, 1, 1900, 1970, 2000, 2024, 2026, 2100, 9999).map(i -> String.format("%04d", i));
        Arbitrary<String> three = Arbitraries.integers().between(0, 999).map(i -> String.format("%03d", i));
        return net.jqwik.api.Combinators.combine(four, two, two, two, two, two, three)
                .as((y, mo, d, h, mi, s, ms) -> y + "-" + mo + "-" + d + "T" + h + ":" + mi + ":" + s + "." + ms + "Z");
    }

    @Property(tries = 3000)
    void digitsAndFormatterAgree(@ForAll("times") String text) {
        assertThat(parsed(text)).as(text).isEqualTo(reference(text));
    }

    @Provide
    Arbitrary<Instant> instants() {
        // Years -2000 to 12000: inside 0000 to 9999 format writes the digits itself, outside it asks the formatter.
        Arbitrary<Long> seconds = Arbitraries.longs().between(-125_000_000_000L, 316_000_000_000L);
        Arbitrary<Long> near = Arbitraries.of(-62_167_219_200L, 253_402_300_799L, 0L, -1L, 1_795_000_000L)
                .flatMap(s -> Arbitraries.longs().between(s - 90_000, s + 90_000));
        return net.jqwik.api.Combinators.combine(Arbitraries.oneOf(seconds, near),
                Arbitraries.integers().between(0, 999_999_999)).as(Instant::ofEpochSecond);
    }

    @Property(tries = 3000)
    void writingAgreesWithTheFormatter(@ForAll("instants") Instant at) {
        assertThat(Timestamps.format(at)).as(at.toString()).isEqualTo(Timestamps.FORMAT.format(at));
    }

    @Example
    void writingEdges() {
        assertThat(Timestamps.format(Instant.parse("2026-11-30T07:01:02.345678Z"))).isEqualTo("2026-11-30T07:01:02.345Z");
        assertThat(Timestamps.format(Instant.parse("1969-12-31T23:59:59.999999999Z"))).isEqualTo("1969-12-31T23:59:59.999Z");
        assertThat(Timestamps.format(Instant.parse("0000-01-01T00:00:00Z"))).isEqualTo("0000-01-01T00:00:00.000Z");
        assertThat(Timestamps.format(Instant.parse("9999-12-31T23:59:59.999Z"))).isEqualTo("9999-12-31T23:59:59.999Z");
        assertThat(Timestamps.format(Instant.parse("+10000-01-01T00:00:00Z"))).isEqualTo(Timestamps.FORMAT.format(
                Instant.parse("+10000-01-01T00:00:00Z")));
    }

    @Example
    void edges() {
        for (String text : new String[] {"2024-02-29T23:59:59.999Z", "2026-02-29T00:00:00.000Z", "2026-11-30T24:00:00.000Z",
            "2026-11-30T23:59:60.000Z", "2026-11-30T07:01:02.345Z", "2026-11-30T07:01:02Z", "2026-11-30T07:01:02.3450Z",
            "2026-11-30t07:01:02.345Z", "2026-11-30T07:01:02.345+00:00", "+2026-11-30T07:01:02.345Z", "0000-01-01T00:00:00.000Z",
            "1969-12-31T23:59:59.999Z", "2026-1a-30T07:01:02.345Z", "２０２６-11-30T07:01:02.345Z"}) {
            assertThat(parsed(text)).as(text).isEqualTo(reference(text));
        }
        assertThat(Timestamps.parse("2026-11-30T07:01:02.345Z")).isEqualTo(Instant.parse("2026-11-30T07:01:02.345Z"));
    }
}
