package io.mcpledger.query;

import io.mcpledger.domain.policy.PolicyDocument;
import io.mcpledger.domain.receipt.Receipt;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** The log as the projections read it: committed entries by position, and receipts by id. */
public interface LogReader {
    /** One entry: its position, its receipt, and for {@code policy.activated} the policy it activated. */
    record Entry(long position, Receipt receipt, PolicyDocument policy) {
    }

    /** Told of each entry of a scan, in order. */
    @FunctionalInterface
    interface EntryConsumer {
        void accept(Entry entry);
    }

    /** How many entries are committed: the next position. */
    long size();

    /** The committed entry at {@code position}. */
    Entry entry(long position);

    /** The committed entries at these positions, by position; one read where the store allows it. */
    default Map<Long, Entry> entries(Collection<Long> positions) {
        Map<Long, Entry> entries = new HashMap<>();
        for (long position : positions) {
            entries.put(position, entry(position));
        }
        return entries;
    }

    /** Every committed entry from {@code from} (inclusive) to {@code to} (exclusive), in order. */
    void scan(long from, long to, EntryConsumer consumer);

    /** The committed receipt with this id, or null. */
    Receipt receipt(String receiptId);
}
