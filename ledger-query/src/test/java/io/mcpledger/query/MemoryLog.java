package io.mcpledger.query;

import io.mcpledger.domain.LedgerEvent;
import io.mcpledger.domain.policy.PolicyActivated;
import io.mcpledger.domain.receipt.Receipt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The log in memory, for tests: entries at their positions, receipts by id. */
final class MemoryLog implements LogReader {
    private final List<Entry> entries = new ArrayList<>();
    private final Map<String, Long> byId = new HashMap<>();

    /** Appends a committed batch and returns the position of its first entry. */
    synchronized long append(List<? extends LedgerEvent> events) {
        long first = entries.size();
        for (LedgerEvent event : events) {
            long position = entries.size();
            entries.add(new Entry(position, event.receipt(), event instanceof PolicyActivated p ? p.document() : null));
            byId.put(event.receipt().id(), position);
        }
        return first;
    }

    synchronized List<Receipt> receipts() {
        return entries.stream().map(Entry::receipt).toList();
    }

    @Override
    public synchronized long size() {
        return entries.size();
    }

    @Override
    public synchronized Entry entry(long position) {
        return entries.get((int) position);
    }

    @Override
    public void scan(long from, long to, EntryConsumer consumer) {
        for (long p = from; p < to; p++) {
            consumer.accept(entry(p));
        }
    }

    @Override
    public synchronized Receipt receipt(String receiptId) {
        Long position = byId.get(receiptId);
        return position == null ? null : entries.get(position.intValue()).receipt();
    }
}
