package io.mcpledger.query;

/** The projection digest with the number of receipts it covers. */
public record DigestView(long treeSize, String digest) {
}
