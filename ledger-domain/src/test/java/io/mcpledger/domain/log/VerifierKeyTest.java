package io.mcpledger.domain.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mcpledger.domain.crypto.InvalidKeyException;
import io.mcpledger.domain.crypto.LogKeys;
import io.mcpledger.domain.crypto.SigningKey;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** C2SP Ed25519 verifier keys, {@code <name>+<key hash>+<base64(0x01 || key)>}: the contract's key and every refusal. */
class VerifierKeyTest {
    private static final String ORIGIN = LedgerVectors.origin();
    private static final String VKEY = LedgerVectors.key().get("vkey").asText();
    private static final byte[] PUBLIC = SigningKey.fromSeed(LedgerVectors.seed()).publicKey().raw();

    private static String typedKey(byte type, byte[] key) {
        byte[] typed = new byte[key.length + 1];
        typed[0] = type;
        System.arraycopy(key, 0, typed, 1, key.length);
        return Base64.getEncoder().encodeToString(typed);
    }

    @Test
    void contractKeyParsesToItsNameHashAndKey() throws Exception {
        VerifierKey key = VerifierKey.parse(VKEY);

        assertThat(key.name()).isEqualTo(ORIGIN);
        assertThat(key.keyHash()).isEqualTo(LogKeys.keyHash(ORIGIN, PUBLIC));
        assertThat(key.key().raw()).isEqualTo(PUBLIC);
        assertThat(key.encode()).isEqualTo(VKEY);
    }

    @Test
    void keyOfTwoPartsIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(ORIGIN + "+adf8fba0"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, expected <name>+<hash>+<key>, got 2 '+'-separated parts");
    }

    @Test
    void keyOfOnePartIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(ORIGIN))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, expected <name>+<hash>+<key>, got 1 '+'-separated parts");
    }

    @Test
    void uppercaseKeyHashIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(VKEY.replace("+adf8fba0+", "+ADF8FBA0+")))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the key hash 'ADF8FBA0' is not 8 lowercase hex characters");
    }

    @Test
    void shortKeyHashIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(VKEY.replace("+adf8fba0+", "+adf8fb+")))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the key hash 'adf8fb' is not 8 lowercase hex characters");
    }

    @Test
    void keyHashThatDoesNotMatchTheNameAndKeyIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(VKEY.replace("+adf8fba0+", "+adf8fba1+")))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, its key hash adf8fba1 does not match its name and key"
                        + " (expected adf8fba0)");
    }

    @Test
    void keyUnderAnotherNameDoesNotMatchItsKeyHash() {
        assertThatThrownBy(() -> VerifierKey.parse(VKEY.replace(ORIGIN + "+", "other.example/log+")))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageStartingWith("Invalid verifier key, its key hash adf8fba0 does not match its name and key");
    }

    @Test
    void keyOfAnotherTypeIsRefused() {
        String vkey = ORIGIN + "+adf8fba0+" + typedKey((byte) 0x02, PUBLIC);

        assertThatThrownBy(() -> VerifierKey.parse(vkey))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, expected an Ed25519 key (type 0x01 and 32 bytes)");
    }

    @Test
    void keyOf31BytesIsRefused() {
        String vkey = ORIGIN + "+adf8fba0+" + typedKey(LogKeys.ED25519_TYPE, Arrays.copyOf(PUBLIC, 31));

        assertThatThrownBy(() -> VerifierKey.parse(vkey))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, expected an Ed25519 key (type 0x01 and 32 bytes)");
    }

    @Test
    void keyOf33BytesIsRefused() {
        String vkey = ORIGIN + "+adf8fba0+" + typedKey(LogKeys.ED25519_TYPE, Arrays.copyOf(PUBLIC, 33));

        assertThatThrownBy(() -> VerifierKey.parse(vkey))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, expected an Ed25519 key (type 0x01 and 32 bytes)");
    }

    @Test
    void keyThatIsNotBase64IsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse(ORIGIN + "+adf8fba0+not*base64!"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the key is not standard base64");
    }

    @Test
    void nameWithASpaceIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse("ledger example+adf8fba0+" + typedKey(LogKeys.ED25519_TYPE, PUBLIC)))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the name 'ledger example' must be non-empty, with no spaces or '+'");
    }

    @Test
    void emptyNameIsRefused() {
        assertThatThrownBy(() -> VerifierKey.parse("+adf8fba0+" + typedKey(LogKeys.ED25519_TYPE, PUBLIC)))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the name '' must be non-empty, with no spaces or '+'");
    }

    @Test
    void keyForANameWithASpaceCannotBeMade() {
        assertThatThrownBy(() -> VerifierKey.of("ledger example", SigningKey.fromSeed(LedgerVectors.seed()).publicKey()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid verifier key, the name 'ledger example' must be non-empty, with no spaces or '+'");
    }
}
