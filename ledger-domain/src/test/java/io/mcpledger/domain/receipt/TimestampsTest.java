package io.mcpledger.domain.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The digit-by-digit reading of receipt times accepts exactly what the formatter's round trip accepts. */
class TimestampsTest {
    /** The formatter's answer: the instant, or null when the text is refused. */
    private static Instant reference(String text) {
        try {
            Instant at = Instant.parse(text);
            return Timestamps.format(at).equals(text) ? at : null;
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
