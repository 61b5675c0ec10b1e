package io.mcpledger.app.http;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock the test moves by hand, so idle expiry and grant lifetimes are exact. The ledger's background reaper
 * (its thread is named {@value #REAPER_THREAD}) sees the start time until {@link #letReaperSeeNow()}: otherwise it
 * could expire a session between {@link #advance} and the request a test sends, and which of the two appended
 * {@code session.expired} would depend on thread timing.
 */
final class TestClock extends Clock {
    static final String REAPER_THREAD = "ledger-reaper";

    private final Instant start;
    private volatile Instant now;
    private volatile boolean reaperSeesNow;

    TestClock(Instant start) {
        this.start = start;
        this.now = start;
    }

    void advance(Duration by) {
        now = now.plus(by);
    }

    /** From now on the reaper reads the same time as every request. */
    void letReaperSeeNow() {
        reaperSeesNow = true;
    }

    @Override
    public Instant instant() {
        if (!reaperSeesNow && Thread.currentThread().getName().equals(REAPER_THREAD)) {
            return start;
        }
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
