package io.mcpledger.app.cli;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses the durations of contract section 2: a positive whole number followed by {@code ms}, {@code s}, {@code m} or
 * {@code h}, as in {@code 500ms}, {@code 5s}, {@code 30m}, {@code 1h}. {@code java.time.Duration.parse} wants
 * ISO-8601 ({@code PT5S}), which no operator types, hence this small parser.
 */
public final class Durations implements CommandLine.ITypeConverter<Duration> {
    /** At most 18 digits, so the number always fits a long; overflow is left to the unit conversion to report. */
    private static final Pattern FORM = Pattern.compile("([0-9]{1,18})(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** The duration {@code text} stands for; a {@link CommandLine.TypeConversionException} saying why not. */
    public static Duration parse(String text) {
        Matcher m = FORM.matcher(text);
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a duration; write a whole number "
                    + "followed by ms, s, m or h, e.g. 500ms, 5s, 30m, 1h");
        }
        long amount = Long.parseLong(m.group(1));
        if (amount == 0) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a usable duration; it must be "
                    + "greater than zero");
        }
        ChronoUnit unit = switch (m.group(2)) {
            case "ms" -> ChronoUnit.MILLIS;
            case "s" -> ChronoUnit.SECONDS;
            case "m" -> ChronoUnit.MINUTES;
            default -> ChronoUnit.HOURS;
        };
        try {
            Duration duration = Duration.of(amount, unit);
            // Durations end up as millisecond timeouts and schedules; one that has no millisecond form is useless.
            duration.toMillis();
            return duration;
        } catch (ArithmeticException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too long a duration");
        }
    }
}
