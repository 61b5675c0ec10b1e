package io.mcpledger.domain.session;

import static io.mcpledger.domain.session.SessionScript.ARGS;
import static org.assertj.core.api.Assertions.assertThat;

import io.mcpledger.domain.receipt.Receipt;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one chain rule, over receipts the real aggregate signed. */
class SessionChainTest {
    private final List<Receipt> r = SessionScript.initialized().call("req-1", "quote", ARGS, 1)
            .call("req-2", "quote", ARGS, 2).receipts();

    @Test
    void eachReceiptFollowsTheOneBeforeIt() {
        assertThat(SessionChain.check(0, null, r.get(0))).isNull();
        assertThat(SessionChain.check(1, r.get(0).hash(), r.get(1))).isNull();
        assertThat(SessionChain.check(2, r.get(1).hash(), r.get(2))).isNull();
    }

    @Test
    void aSessionThatStartsPastSeqOneStartsLate() {
        assertThat(SessionChain.check(0, null, r.get(1))).isEqualTo(SessionChain.Break.STARTS_LATE);
    }

    @Test
    void aSkippedSeqJumps() {
        assertThat(SessionChain.check(1, r.get(0).hash(), r.get(2))).isEqualTo(SessionChain.Break.JUMPS);
    }

    @Test
    void aRepeatedSeqGoesBack() {
        assertThat(SessionChain.check(2, r.get(1).hash(), r.get(1))).isEqualTo(SessionChain.Break.GOES_BACK);
    }

    @Test
    void theNextSeqWithAnotherPrevBreaksThePrevChain() {
        assertThat(SessionChain.check(1, r.get(1).hash(), r.get(1))).isEqualTo(SessionChain.Break.PREV_BROKEN);
    }
}
