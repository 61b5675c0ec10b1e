package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * C2SP checkpoints, each signed as a note under the contract's TEST key so that only the checkpoint's own rules
 * can refuse it.
 */
class CheckpointTest {
    private static final String ORIGIN = LedgerVectors.origin();
    private static final SigningKey KEY = SigningKey.fromSeed(LedgerVectors.seed());
    private static final String ROOT = "dpA0y59wbYIsRNAEpQFrDpCfGeayzOJUYd59p26kw7E=";

    private final VerifierKey vkey = LedgerVectors.verifierKey();

    /** {@code body} signed as a note under the key's name, whatever the body says. */
    private static String signed(String body) {
        return SignedNote.sign(body, ORIGIN, KEY, LogKeys.keyHash(ORIGIN, KEY.publicKey().raw()));
    }

    @Test
    void signedCheckpointOpensToItsOriginSizeAndRoot() throws Exception {
        Checkpoint opened = Checkpoint.open(signed(ORIGIN + "\n6\n" + ROOT + "\n"), vkey);

        assertThat(opened).isEqualTo(new Checkpoint(ORIGIN, 6, Base64.getDecoder().decode(ROOT)));
    }

    @Test
    void checkpointOfTwoLinesIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n6\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("a checkpoint is at least three lines (origin, size, root), each ending in a newline");
    }

    @Test
    void sizeThatIsNotDecimalIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n0x10\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '0x10' is not a decimal number");
    }

    @Test
    void sizeWithALeadingZeroIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n01\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '01' is not a decimal number");
    }

    @Test
    void negativeSizeIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n-1\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '-1' is not a decimal number");
    }

    @Test
    void sizeWithAPlusSignIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n+6\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '+6' is not a decimal number");
    }

    @Test
    void sizeOfLongMaxValueIsAccepted() throws Exception {
        Checkpoint opened = Checkpoint.open(signed(ORIGIN + "\n" + Long.MAX_VALUE + "\n" + ROOT + "\n"), vkey);

        assertThat(opened.size()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void sizeOneAboveLongMaxValueIsRefusedAsTooLarge() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n9223372036854775808\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '9223372036854775808' is too large");
    }

    @Test
    void aSizeOfTwentyDigitsIsRefusedAsTooLarge() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n18446744073709551616\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's size '18446744073709551616' is too large");
    }

    @Test
    void rootThatIsNotBase64IsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n6\nnot*base64!\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's root 'not*base64!' is not standard base64");
    }

    @Test
    void rootWithoutItsBase64PaddingIsRefused() {
        String unpadded = ROOT.substring(0, ROOT.length() - 1);

        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n6\n" + unpadded + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's root '" + unpadded + "' is not standard base64");
    }

    @Test
    void rootOf31BytesIsRefused() {
        String root = Base64.getEncoder().encodeToString(new byte[31]);

        assertThatThrownBy(() -> Checkpoint.open(signed(ORIGIN + "\n6\n" + root + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's root is 31 bytes; a hash is 32");
    }

    @Test
    void emptyOriginLineIsRefused() {
        assertThatThrownBy(() -> Checkpoint.parseBody("\n6\n" + ROOT + "\n"))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's origin line is empty");
    }

    @Test
    void originOtherThanTheKeysNameIsRefused() {
        assertThatThrownBy(() -> Checkpoint.open(signed("other.example/log\n6\n" + ROOT + "\n"), vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the checkpoint's origin 'other.example/log' is not the key's name '" + ORIGIN + "'");
    }

    @Test
    void extensionLinesAfterTheRootAreAcceptedAndIgnored() throws Exception {
        String body = ORIGIN + "\n6\n" + ROOT + "\nextension one\nextension two\n";

        Checkpoint opened = Checkpoint.open(signed(body), vkey);

        assertThat(opened).isEqualTo(new Checkpoint(ORIGIN, 6, Base64.getDecoder().decode(ROOT)));
    }

    @Test
    void signedCheckpointRoundTrips() throws Exception {
        Checkpoint checkpoint = new Checkpoint(ORIGIN, 1234, Base64.getDecoder().decode(ROOT));

        assertThat(Checkpoint.open(checkpoint.sign(KEY), vkey)).isEqualTo(checkpoint);
    }
}
