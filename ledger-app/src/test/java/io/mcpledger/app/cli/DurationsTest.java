package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class DurationsTest {
    @Test
    void millisecondsSecondsMinutesAndHoursParse() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void leadingZerosAreHarmless() {
        assertThat(Durations.parse("05s")).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theConverterIsTheParser() throws Exception {
        assertThat(new Durations().convert("90s")).isEqualTo(Duration.ofSeconds(90));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5", "5x", "-5s", "1.5s", "5 s", " 5s", "5S", "s", "1h30m", "PT5S", "+5s",
        "1234567890123456789s"})
    void malformedDurationsAreRefused(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'" + text + "' is not a duration; write a whole number followed by ms, s, m or h, "
                        + "e.g. 500ms, 5s, 30m, 1h");
    }

    @Test
    void zeroIsRefused() {
        assertThatThrownBy(() -> Durations.parse("0s"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'0s' is not a usable duration; it must be greater than zero");
    }

    @Test
    void aDurationTooLongForMillisecondsIsRefused() {
        assertThatThrownBy(() -> Durations.parse("999999999999999999h"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'999999999999999999h' is too long a duration");
    }

    @Test
    void theLongestMillisecondDurationInHoursParses() {
        long hours = Long.MAX_VALUE / 3_600_000L;

        assertThat(Durations.parse(hours + "h")).isEqualTo(Duration.ofHours(hours));
        assertThatThrownBy(() -> Durations.parse((hours + 1) + "h"))
                .hasMessage("'" + (hours + 1) + "h' is too long a duration");
    }
}
