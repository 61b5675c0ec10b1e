package io.mcpledger.app;

/**
 * The Micronaut environments of the one jar: {@code serve} runs the ledger's beans, {@code edge} (contract section 16)
 * runs the reference MCP edge's instead; each bean of one is marked {@code @Requires} so that it never starts in the
 * other.
 */
public final class Environments {
    /** The environment {@code ledger-app edge} starts its context in. */
    public static final String EDGE = "edge";

    private Environments() {
    }
}
