package io.mcpledger.verify;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress report on a terminal while a long log is checked: after the first second, at most five times a
 * second, overwritten in place and erased at the end. Off for --json and when the output is not a terminal.
 */
final class Progress {
    private static final long QUIET_NANOS = 1_000_000_000L;
    private static final long EVERY_NANOS = 200_000_000L;

    private final PrintWriter err;
    private final boolean enabled;
    private final long totalBytes;
    private final LongSupplier clock;
    private final long started;
    private long last;
    private int width;

    Progress(PrintWriter err, boolean enabled, long totalBytes) {
        this(err, enabled, totalBytes, System::nanoTime);
    }

    /** With another clock (nanoseconds), for tests. */
    Progress(PrintWriter err, boolean enabled, long totalBytes, LongSupplier clock) {
        this.err = err;
        this.enabled = enabled;
        this.totalBytes = totalBytes;
        this.clock = clock;
        this.started = clock.getAsLong();
        this.last = started;
    }

    /** Whether a person is watching: a terminal, and not --json. */
    static boolean wanted(boolean json) {
        return !json && System.console() != null;
    }

    void update(long lines, long bytes) {
        if (!enabled || (lines & 1023) != 0) {
            return;
        }
        long now = clock.getAsLong();
        if (now - started < QUIET_NANOS || now - last < EVERY_NANOS) {
            return;
        }
        last = now;
        long percent = totalBytes > 0 ? Math.min(100, bytes * 100 / totalBytes) : 0;
        long seconds = (now - started) / 1_000_000_000L;
        String text = String.format(Locale.ROOT, "ledger-verify: %,d lines checked (%d%%), %d s", lines, percent, seconds);
        err.print("\r" + text + " ".repeat(Math.max(0, width - text.length())));
        err.flush();
        width = text.length();
    }

    /** Erases the line, if one was written. */
    void done() {
        if (enabled && width > 0) {
            err.print("\r" + " ".repeat(width) + "\r");
            err.flush();
            width = 0;
        }
    }
}
