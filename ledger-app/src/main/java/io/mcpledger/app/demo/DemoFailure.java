package io.mcpledger.app.demo;

/** A step of the demo did not behave as the story says: which step, what it should have seen, what it saw. */
public final class DemoFailure extends RuntimeException {
    private final int step;
    private final String expected;
    private final String got;

    public DemoFailure(int step, String expected, String got) {
        super("DEMO FAILED at step " + step + ": expected " + expected + ", got " + got);
        this.step = step;
        this.expected = expected;
        this.got = got;
    }

    public int step() {
        return step;
    }

    public String expected() {
        return expected;
    }

    public String got() {
        return got;
    }
}
