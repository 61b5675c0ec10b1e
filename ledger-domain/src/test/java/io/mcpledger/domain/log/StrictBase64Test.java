package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link StrictBase64#isCanonical} answers as decoding does, without decoding: true exactly when {@code decode} accepts
 * the text and gives that many bytes. Tried on encodings of random bytes, on them with one character changed, and on
 * random text over the alphabet and the padding.
 */
class StrictBase64Test {
    private static boolean reference(String text, int bytes) {
        byte[] decoded = StrictBase64.decode(text);
        return decoded != null && decoded.length == bytes;
    }

    @Property(tries = 1000)
    void anEncodingWithOneCharacterChangedIsCanonicalExactlyWhenItDecodes(@ForAll @Size(max = 70) byte[] bytes,
            @ForAll @IntRange(min = 0, max = 1000) int where, @ForAll("characters") char replacement) {
        String encoded = Base64.getEncoder().encodeToString(bytes);
        assertThat(StrictBase64.isCanonical(encoded, 0, encoded.length(), bytes.length)).isTrue();
        if (encoded.isEmpty()) {
            return;
        }
        int at = where * (encoded.length() - 1) / 1000;
        String changed = encoded.substring(0, at) + replacement + encoded.substring(at + 1);
        for (int length : new int[] {bytes.length - 1, bytes.length, bytes.length + 1}) {
            assertThat(StrictBase64.isCanonical("x" + changed + "y", 1, changed.length() + 1, length))
                    .as("%s as %d bytes", changed, length).isEqualTo(reference(changed, length));
        }
    }

    @Property(tries = 1000)
    void randomTextIsCanonicalExactlyWhenItDecodes(@ForAll("texts") String text,
            @ForAll @IntRange(min = 0, max = 8) int bytes) {
        assertThat(StrictBase64.isCanonical(text, 0, text.length(), bytes)).as(text).isEqualTo(reference(text, bytes));
    }

    @Provide
    Arbitrary<Character> characters() {
        return Arbitraries.chars().with("ABZaz09+/=-_ \n".toCharArray());
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.strings().withChars("AQgwBCE/+=a".toCharArray()).ofMaxLength(12);
    }

    @Example
    void aSignaturesSpellings() {
        String sig = Base64.getEncoder().encodeToString(new byte[64]);
        assertThat(StrictBase64.isCanonical(sig, 0, sig.length(), 64)).isTrue();
        String lowBitsSet = sig.substring(0, 85) + "B==";
        assertThat(Base64.getDecoder().decode(lowBitsSet)).as("Java's decoder ignores the unused bits").hasSize(64);
        assertThat(StrictBase64.isCanonical(lowBitsSet, 0, lowBitsSet.length(), 64)).isFalse();
        assertThat(StrictBase64.isCanonical(sig.substring(0, 86), 0, 86, 64)).as("unpadded").isFalse();
    }
}
