package io.mcpledger.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.IdentifierFactory;
import org.junit.jupiter.api.Test;

/** Axon names its messages with the ledger's identifiers: random version 4 UUIDs, distinct across threads. */
class MessageIdentifiersTest {
    @Test
    void axonFindsTheLedgersFactory() {
        assertThat(IdentifierFactory.getInstance()).isInstanceOf(MessageIdentifiers.class);
        String id = GenericCommandMessage.asCommandMessage("a command").getIdentifier();
        assertThat(UUID.fromString(id).version()).isEqualTo(4);
    }

    @Test
    void identifiersAreVersionFourUuidsAsUuidWritesThem() {
        MessageIdentifiers identifiers = new MessageIdentifiers();
        for (int i = 0; i < 10_000; i++) {
            String id = identifiers.generateIdentifier();
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(uuid.toString()).isEqualTo(id);
        }
    }

    @Test
    void threadsDrawingAtOnceNeverDrawTheSameIdentifier() throws Exception {
        MessageIdentifiers identifiers = new MessageIdentifiers();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        int threads = 4;
        int each = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> drawn = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                drawn.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        seen.add(identifiers.generateIdentifier());
                    }
                }));
            }
            for (Future<?> f : drawn) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(threads * each);
    }
}
