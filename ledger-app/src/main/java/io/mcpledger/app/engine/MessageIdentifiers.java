package io.mcpledger.app.engine;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.axonframework.common.IdentifierFactory;

/**
 * The identifiers Axon gives its messages (commands, events, results): random version 4 UUIDs, as Axon's default
 * gives, drawn from each thread's own generator instead of {@link UUID#randomUUID}, whose one {@code SecureRandom}
 * every thread takes in turn. Each admission takes several, on the event loops and the commit workers at once, and
 * a thread that lost the processor while it held that lock held the others up with it (JFR at 1,000 admissions/s:
 * waits of 1 to 11 ms to enter it; benchmarks.md, section 8). The ledger stores none of these identifiers (its log
 * has its own positions, its receipts their own ids) and none leaves the process, so they need to be distinct, not
 * unguessable. Axon finds this class through {@code META-INF/services}.
 */
public final class MessageIdentifiers extends IdentifierFactory {
    @Override
    public String generateIdentifier() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong() & ~0xF000L | 0x4000L;
        long low = random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L;
        return new UUID(high, low).toString();
    }
}
