package io.mcpledger.domain.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
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
}
