package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** C2SP signed notes under the contract's TEST key: what {@link SignedNote#open} accepts and every way it refuses. */
class SignedNoteTest {
    private static final String ORIGIN = LedgerVectors.origin();
    private static final SigningKey KEY = SigningKey.fromSeed(LedgerVectors.seed());
    private static final SigningKey OTHER_KEY = SigningKey.fromSeed(new byte[32]);
    private static final String TEXT = "ledger.example/test\n6\ndpA0y59wbYIsRNAEpQFrDpCfGeayzOJUYd59p26kw7E=\n";

    private final VerifierKey vkey = LedgerVectors.verifierKey();

    private static String sign(String text, String name, SigningKey key) {
        return SignedNote.sign(text, name, key, LogKeys.keyHash(name, key.publicKey().raw()));
    }

    /** The signature line alone, for notes carrying several. */
    private static String signatureLine(String text, String name, SigningKey key) {
        String note = sign(text, name, key);
        return note.substring(note.lastIndexOf("\n\n") + 2);
    }

    @Test
    void noteSignedByTheKeyOpensToItsText() throws Exception {
        assertThat(SignedNote.open(sign(TEXT, ORIGIN, KEY), vkey)).isEqualTo(TEXT);
    }

    @Test
    void noteWithoutABlankLineIsRefused() {
        String note = sign(TEXT, ORIGIN, KEY).replace("\n\n", "\n");

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note has no blank line between its text and its signatures");
    }

    @Test
    void noteWithAnEmptyTextIsRefusedAsEmpty() {
        String note = "\n" + signatureLine(TEXT, ORIGIN, KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note's text is empty");
    }

    @Test
    void noteWhoseTextIsOnlyANewlineIsRefusedAsEmpty() {
        String note = "\n\n" + signatureLine(TEXT, ORIGIN, KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note's text is empty");
    }

    @Test
    void signatureLineWithoutTheEmDashIsRefused() {
        String note = sign(TEXT, ORIGIN, KEY).replace("\u2014 ", "- ");

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageStartingWith("the signature line '- " + ORIGIN + " ")
                .hasMessageEndingWith("' does not start with '\u2014 '");
    }

    @Test
    void signatureThatIsNotBase64IsRefused() {
        String note = TEXT + "\n\u2014 " + ORIGIN + " not*base64!\n";

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the signature of '" + ORIGIN + "' is not standard base64");
    }

    @Test
    void signatureShorterThanAKeyHashAndOneByteIsRefused() {
        String fourBytes = Base64.getEncoder().encodeToString(vkey.keyHash());
        String note = TEXT + "\n\u2014 " + ORIGIN + " " + fourBytes + "\n";

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the signature of '" + ORIGIN + "' is too short");
    }

    @Test
    void noteSignedOnlyByAnUnknownKeyIsRefused() {
        String note = sign(TEXT, ORIGIN, OTHER_KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note carries no signature by " + ORIGIN + "+adf8fba0");
    }

    @Test
    void noteSignedOnlyUnderAnotherNameIsRefused() {
        String note = sign(TEXT, "other.example/log", KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note carries no signature by " + ORIGIN + "+adf8fba0");
    }

    @Test
    void signatureWithTheKeysNameAndHashThatDoesNotVerifyIsRefused() {
        String note = sign(TEXT, ORIGIN, KEY);
        String b64 = note.substring(note.lastIndexOf(' ') + 1, note.length() - 1);
        byte[] tagged = Base64.getDecoder().decode(b64);
        tagged[10] ^= 0x01;
        String forged = note.replace(b64, Base64.getEncoder().encodeToString(tagged));

        assertThatThrownBy(() -> SignedNote.open(forged, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the signature of '" + ORIGIN + "' does not verify: the note was changed or not signed by"
                        + " this key");
    }

    @Test
    void noteWhoseTextChangedAfterSigningIsRefused() {
        String note = sign(TEXT, ORIGIN, KEY).replace("\n6\n", "\n7\n");

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageContaining("does not verify");
    }

    @Test
    void unknownKeySignatureBeforeAValidOneIsSkipped() throws Exception {
        String note = TEXT + "\n" + signatureLine(TEXT, "witness.example/w1", OTHER_KEY)
                + signatureLine(TEXT, ORIGIN, KEY);

        assertThat(SignedNote.open(note, vkey)).isEqualTo(TEXT);
    }

    @Test
    void unknownKeySignatureAfterAValidOneIsSkipped() throws Exception {
        String note = sign(TEXT, ORIGIN, KEY) + signatureLine(TEXT, ORIGIN, OTHER_KEY);

        assertThat(SignedNote.open(note, vkey)).isEqualTo(TEXT);
    }

    @Test
    void textWithAControlCharacterIsRefused() {
        String note = sign("ledger.example/test\n6\nbell\u0007\n", ORIGIN, KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note's text holds a control character");
    }

    @Test
    void textWithATabIsRefused() {
        String note = sign("ledger.example/test\n6\ta\n", ORIGIN, KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note's text holds a control character");
    }

    @Test
    void signatureLinesNotEndingInANewlineAreRefused() {
        String note = sign(TEXT, ORIGIN, KEY);
        String truncated = note.substring(0, note.length() - 1);

        assertThatThrownBy(() -> SignedNote.open(truncated, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note's signature lines are missing or do not end in a newline");
    }

    @Test
    void signatureLineWithoutANameIsRefused() {
        String note = sign(TEXT, ORIGIN, KEY).replace("\u2014 " + ORIGIN + " ", "\u2014  ");

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageEndingWith("' is not '\u2014 <name> <signature>'");
    }

    @Test
    void aSignatureLineWhoseNameHoldsAPlusIsRefusedEvenBesideAValidOne() {
        String note = sign(TEXT, ORIGIN, KEY) + signatureLine(TEXT, "witness+1", OTHER_KEY);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessageStartingWith("the signature line '\u2014 witness+1 ")
                .hasMessageEndingWith("' is not '\u2014 <name> <signature>'");
    }

    @Test
    void noteWithMoreThanAHundredSignaturesIsRefused() {
        String line = signatureLine(TEXT, ORIGIN, KEY);
        String note = TEXT + "\n" + line.repeat(101);

        assertThatThrownBy(() -> SignedNote.open(note, vkey))
                .isInstanceOf(InvalidProofException.class)
                .hasMessage("the note has 101 signatures, more than 100");
    }
}
