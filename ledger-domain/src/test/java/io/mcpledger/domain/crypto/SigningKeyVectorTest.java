package io.mcpledger.domain.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mcpledger.domain.receipt.LedgerVectors;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyInfoFactory;
import org.junit.jupiter.api.Test;

class SigningKeyVectorTest {
    private static final JsonNode KEY = LedgerVectors.key();
    private static final SigningKey SIGNING_KEY = SigningKey.fromSeed(LedgerVectors.seed());

    @Test
    void privatePemFromTheSeedIsTheVectorPem() {
        assertThat(SIGNING_KEY.privatePem()).isEqualTo(KEY.get("privatePem").asText());
    }

    @Test
    void privatePemIsPkcs8VersionOneOfFortyEightBytes() {
        // OpenSSL 3.0 refuses the v2 form Bouncy Castle writes by default; v1 is the 48-byte encoding.
        String body = SIGNING_KEY.privatePem()
                .replace("-----BEGIN PRIVATE KEY-----", "")
                .replace("-----END PRIVATE KEY-----", "")
                .strip();
        assertThat(Base64.getDecoder().decode(body)).hasSize(48);
    }

    @Test
    void publicPemFromTheSeedIsTheVectorPem() {
        assertThat(SIGNING_KEY.publicKey().pem()).isEqualTo(KEY.get("publicPem").asText());
    }

    @Test
    void publicRawKeyFromTheSeedIsTheVectorKey() {
        assertThat(Hex.encode(SIGNING_KEY.publicKey().raw())).isEqualTo(KEY.get("publicRawHex").asText());
    }

    @Test
    void keyIdForTheTestOriginIsAdf8fba0() {
        assertThat(LogKeys.keyId("ledger.example/test", SIGNING_KEY.publicKey().raw()))
                .isEqualTo("adf8fba0")
                .isEqualTo(KEY.get("keyId").asText());
    }

    @Test
    void verifierKeyIsTheVectorVkey() {
        assertThat(LogKeys.verifierKey(LedgerVectors.origin(), SIGNING_KEY.publicKey().raw()))
                .isEqualTo("ledger.example/test+adf8fba0+AXm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk")
                .isEqualTo(KEY.get("vkey").asText());
    }

    @Test
    void defaultOriginIsLedgerLocalAndSixteenHexOfThePublicKeyHash() {
        String expected = "ledger.local/" + Sha256.hex(Hex.decode(KEY.get("publicRawHex").asText())).substring(0, 16);

        assertThat(LogKeys.defaultOrigin(SIGNING_KEY.publicKey().raw())).isEqualTo(expected);
    }

    @Test
    void privatePemReadsBackToTheSameKey() throws InvalidKeyException {
        SigningKey read = SigningKey.fromPem(KEY.get("privatePem").asText());

        assertThat(read.publicKey()).isEqualTo(SIGNING_KEY.publicKey());
        assertThat(read.privatePem()).isEqualTo(KEY.get("privatePem").asText());
    }

    @Test
    void publicPemReadsBackToTheSameKey() throws InvalidKeyException {
        VerifyingKey read = VerifyingKey.fromPem(KEY.get("publicPem").asText());

        assertThat(read).isEqualTo(SIGNING_KEY.publicKey());
        assertThat(Hex.encode(read.raw())).isEqualTo(KEY.get("publicRawHex").asText());
    }

    @Test
    void pkcs8VersionTwoPemFromBouncyCastleReadsBackToTheSameKey() throws Exception {
        PrivateKeyInfo v2 = PrivateKeyInfoFactory.createPrivateKeyInfo(
                new Ed25519PrivateKeyParameters(LedgerVectors.seed(), 0));

        SigningKey read = SigningKey.fromPem(pem("PRIVATE KEY", v2.getEncoded(ASN1Encoding.DER)));

        assertThat(read.privatePem()).isEqualTo(KEY.get("privatePem").asText());
    }

    @Test
    void signatureFromTheSeedVerifiesWithTheVectorPublicKey() throws InvalidKeyException {
        byte[] message = "any message".getBytes(StandardCharsets.UTF_8);

        byte[] signature = SIGNING_KEY.sign(message);

        assertThat(VerifyingKey.fromPem(KEY.get("publicPem").asText()).verify(message, signature)).isTrue();
    }

    @Test
    void publicPemIsRefusedAsAPrivateKey() {
        assertThatThrownBy(() -> SigningKey.fromPem(KEY.get("publicPem").asText()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid key, no PRIVATE KEY PEM section");
    }

    @Test
    void emptyPemSectionIsRefused() {
        assertThatThrownBy(() -> SigningKey.fromPem("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid key, empty PEM section");
    }

    @Test
    void nonBase64PemBodyIsRefused() {
        assertThatThrownBy(() -> VerifyingKey.fromPem("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid key, PEM body is not base64");
    }

    @Test
    void x25519PrivateKeyIsRefused() throws Exception {
        PrivateKeyInfo x25519 = new PrivateKeyInfo(
                new AlgorithmIdentifier(new ASN1ObjectIdentifier("1.3.101.110")), new DEROctetString(LedgerVectors.seed()));

        assertThatThrownBy(() -> SigningKey.fromPem(pem("PRIVATE KEY", x25519.getEncoded(ASN1Encoding.DER))))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessage("Invalid key, expected an Ed25519 key (OID 1.3.101.112), found 1.3.101.110");
    }

    @Test
    void seedOfThirtyOneBytesIsRefused() {
        assertThatThrownBy(() -> SigningKey.fromSeed(new byte[31]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an Ed25519 seed is 32 bytes, got 31");
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
