package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Receipt ids begin with their receipt's time, so the log's index of ids grows at its end. */
class RandomIdsTest {
    private final RandomIds ids = new RandomIds();

    @Test
    void aReceiptIdIsItsMillisecondsInHexThenEightyRandomBits() {
        String id = ids.receiptId(Instant.parse("2026-12-01T00:00:00.123Z"));

        assertThat(id).matches("rcpt-[0-9a-f]{32}");
        assertThat(id.substring(5, 17)).isEqualTo(String.format("%012x", Instant.parse("2026-12-01T00:00:00.123Z")
                .toEpochMilli()));
    }

    @Test
    void laterReceiptsHaveLargerIdsAndTwoOfOneMillisecondDiffer() {
        Instant at = Instant.parse("2026-12-01T00:00:00.123Z");

        assertThat(ids.receiptId(at.plusMillis(1))).isGreaterThan(ids.receiptId(at));
        assertThat(ids.receiptId(at)).isNotEqualTo(ids.receiptId(at));
    }

    @Test
    void theTimeTakesTwelveDigitsWithItsLeadingZeros() {
        assertThat(ids.receiptId(Instant.ofEpochMilli(5)).substring(5, 17)).isEqualTo("000000000005");
        assertThat(ids.receiptId(Instant.ofEpochMilli(0xabc_0000_0001L)).substring(5, 17)).isEqualTo("0abc00000001");
    }

    /** NativePRNG, the default on Linux, shares one generator and its lock among all its instances. */
    @Test
    void eachThreadDrawsFromADrbgOfItsOwn() throws Exception {
        SecureRandom mine = RandomIds.generator();
        SecureRandom other = CompletableFuture.supplyAsync(RandomIds::generator).get();

        assertThat(mine.getAlgorithm()).isEqualTo("DRBG");
        assertThat(other.getAlgorithm()).isEqualTo("DRBG");
        assertThat(other).isNotSameAs(mine);
        assertThat(RandomIds.generator()).isSameAs(mine);
    }
}
