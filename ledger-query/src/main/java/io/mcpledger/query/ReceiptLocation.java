package io.mcpledger.query;

/**
 * Where a receipt's event is stored: its aggregate stream and the 0-based sequence number in it, and its entry in the
 * transparency log ({@code index}, 0-based). The projection keeps these instead of the receipts themselves, so a
 * lookup reads one event from the store.
 */
public record ReceiptLocation(String stream, long sequence, long index) {
}
