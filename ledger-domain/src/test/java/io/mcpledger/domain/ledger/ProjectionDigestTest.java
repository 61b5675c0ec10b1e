package io.mcpledger.domain.ledger;

import static io.mcpledger.domain.session.SessionScript.ARGS;
import static io.mcpledger.domain.session.SessionScript.EDGE_2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.receipt.Receipt;
import io.mcpledger.domain.session.SessionScript;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The streamed digest is the digest of the whole document, whatever the document holds. */
class ProjectionDigestTest {
    private static String streamed(MemoryLedgerState state) {
        return ProjectionDigest.of(state);
    }

    private static String whole(MemoryLedgerState state) {
        return ProjectionDigest.of(ProjectionDigest.document(state));
    }

    @Test
    void anEmptyLedgerHasTheDigestOfItsEmptyDocument() {
        MemoryLedgerState state = new MemoryLedgerState();

        assertThat(streamed(state)).isEqualTo(whole(state))
                .isEqualTo(io.mcpledger.domain.crypto.Sha256.hexOfUtf8("{\"revokedPrincipals\":[],\"sessions\":[]}"));
    }

    @Test
    void sessionsRevocationsAndThePolicyStreamToTheDocumentsDigest() {
        List<Receipt> receipts = SessionScript.initialized().call("req-1", "quote", ARGS, 1)
                .outcome("req-1", "ok", 2).call("req-2", "refund", ARGS, 3).resume(EDGE_2, 4).receipts();
        MemoryLedgerState state = new MemoryLedgerState();
        receipts.forEach(r -> LedgerFold.apply(state, r));

        assertThat(streamed(state)).isEqualTo(whole(state));
    }

    @Test
    void principalsStreamInOrderBeforeSessions() {
        ProjectionDigest.Stream digest = new ProjectionDigest.Stream("ab".repeat(32))
                .revokedPrincipal("01".repeat(32)).revokedPrincipal("02".repeat(32));

        assertThat(digest.finish()).isEqualTo(io.mcpledger.domain.crypto.Sha256.hexOfUtf8("{\"policy\":\""
                + "ab".repeat(32) + "\",\"revokedPrincipals\":[\"" + "01".repeat(32) + "\",\"" + "02".repeat(32)
                + "\"],\"sessions\":[]}"));
    }

    @Test
    void aPrincipalAfterASessionIsRefused() {
        MemoryLedgerState state = new MemoryLedgerState();
        SessionScript.initialized().receipts().forEach(r -> LedgerFold.apply(state, r));
        ProjectionDigest.Stream digest = new ProjectionDigest.Stream(null);
        digest.session(state.sessions().firstEntry().getValue());

        assertThatThrownBy(() -> digest.revokedPrincipal("01".repeat(32)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("revoked principals come before every session");
    }
}
