package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.receipt.LedgerVectors;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The C2SP {@code tlog-proof@v1} text: what {@link TlogProof#parse} reads and every way it refuses. */
class TlogProofTest {
    private static final String CHECKPOINT = LedgerVectors.section("checkpoint").get("text").asText();
    private static final String H1 = "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=";
    private static final String H2 = "lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c=";
    private static final String HEADER = "c2sp.org/tlog-proof@v1\n";
    private static final Base64.Decoder B64 = Base64.getDecoder();

    @Test
    void proofReadsItsIndexHashesAndCheckpoint() throws Exception {
        TlogProof proof = TlogProof.parse(HEADER + "index 2\n" + H1 + "\n" + H2 + "\n\n" + CHECKPOINT);

        assertThat(proof.index()).isEqualTo(2);
        assertThat(proof.hashes()).usingElementComparator(Arrays::compare)
                .containsExactly(B64.decode(H1), B64.decode(H2));
        assertThat(proof.checkpoint()).isEqualTo(CHECKPOINT);
    }

    @Test
    void proofWithoutHashesReadsAnEmptyPath() throws Exception {
        TlogProof proof = TlogProof.parse(HEADER + "index 0\n\n" + CHECKPOINT);

        assertThat(proof.hashes()).isEmpty();
        assertThat(proof.checkpoint()).isEqualTo(CHECKPOINT);
    }

    @Test
    void proofWithAnExtraLineIsAccepted() throws Exception {
        TlogProof proof = TlogProof.parse(HEADER + "extra aGVsbG8=\nindex 2\n" + H1 + "\n\n" + CHECKPOINT);

        assertThat(proof.index()).isEqualTo(2);
        assertThat(proof.hashes()).hasSize(1);
        assertThat(proof.checkpoint()).isEqualTo(CHECKPOINT);
    }

    @Test
    void anExtraLineThatIsNotBase64IsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "extra not*base64\nindex 2\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's extra line is not standard base64");
    }

    @Test
    void proofWithoutTheHeaderIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse("index 2\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("a tlog proof starts with the line 'c2sp.org/tlog-proof@v1'");
    }

    @Test
    void proofWithAnotherVersionHeaderIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse("c2sp.org/tlog-proof@v2\nindex 2\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("a tlog proof starts with the line 'c2sp.org/tlog-proof@v1'");
    }

    @Test
    void indexLineThatIsNotIndexAndADecimalIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index two\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's line 'index two' is not 'index <decimal>'");
    }

    @Test
    void indexWithALeadingZeroIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 02\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's line 'index 02' is not 'index <decimal>'");
    }

    @Test
    void negativeIndexIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index -2\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's line 'index -2' is not 'index <decimal>'");
    }

    @Test
    void indexOneAboveLongMaxValueIsRefusedAsTooLarge() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 9223372036854775808\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's index is too large");
    }

    @Test
    void anIndexOfTwentyDigitsIsRefusedAsTooLarge() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 18446744073709551616\n" + H1 + "\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's index is too large");
    }

    @Test
    void hashLineThatIsNotBase64IsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 2\n" + H1 + "\nnot*base64!\n\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's line 'not*base64!' is not a base64 hash");
    }

    @Test
    void proofWithoutABlankLineIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 2\n" + H1 + "\n" + H2))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof has no blank line before its checkpoint");
    }

    @Test
    void proofWhoseBlankLineWasRemovedIsRefusedAtTheCheckpointsFirstLine() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 2\n" + H1 + "\n" + CHECKPOINT))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof's line 'ledger.example/test' is not a base64 hash");
    }

    @Test
    void proofWithoutACheckpointIsRefused() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 2\n" + H1 + "\n\n"))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof has no checkpoint after its blank line");
    }

    @Test
    void aProofCutAfterItsIndexLineIsRefusedForItsMissingBlankLine() {
        assertThatThrownBy(() -> TlogProof.parse(HEADER + "index 0\n"))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the proof has no blank line before its checkpoint");
    }

    @Test
    void formattedProofParsesBack() throws Exception {
        TlogProof written = new TlogProof(5, List.of(B64.decode(H1)), CHECKPOINT);

        TlogProof read = TlogProof.parse(written.format());

        assertThat(read.index()).isEqualTo(5);
        assertThat(read.hashes()).usingElementComparator(Arrays::compare).containsExactlyElementsOf(written.hashes());
        assertThat(read.checkpoint()).isEqualTo(CHECKPOINT);
    }
}
