package io.mcpledger.domain.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class HexTest {
    @Property(tries = 500)
    void encodesAsTheJavaFormatterDoesAndDecodesBack(@ForAll @Size(max = 80) byte[] bytes) {
        String hex = Hex.encode(bytes);
        assertThat(hex).isEqualTo(HexFormat.of().formatHex(bytes));
        if (bytes.length > 0) {
            assertThat(Hex.decode(hex)).isEqualTo(bytes);
        }
    }
}
