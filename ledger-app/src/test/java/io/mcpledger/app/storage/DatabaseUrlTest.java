package io.mcpledger.app.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A database URL's password never leaves it: not in its text, not in a refusal. */
class DatabaseUrlTest {
    @Test
    void thePasswordIsTakenOutOfTheUrlAndNeverPrinted() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://db:5432/ledger?user=ledger&password=s%40cret&ssl=true",
                "from-env");
        assertThat(url.password()).isEqualTo("s@cret");
        assertThat(url.withoutCredentials()).isEqualTo("jdbc:postgresql://db:5432/ledger?user=ledger&ssl=true");
        assertThat(url.toString()).doesNotContain("cret");
    }

    @Test
    void withoutAPasswordInTheUrlTheEnvironmentsIsUsed() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://db/ledger?user=ledger", "from-env");
        assertThat(url.password()).isEqualTo("from-env");
        assertThat(url.toString()).isEqualTo("jdbc:postgresql://db/ledger?user=ledger");
        assertThat(DatabaseUrl.parse("jdbc:postgresql://db/ledger", null).password()).isNull();
    }

    @Test
    void anythingButAPostgresqlJdbcUrlIsRefusedWithoutRepeatingIt() {
        assertThatThrownBy(() -> DatabaseUrl.parse("postgres://ledger:hunter2@db/ledger", null))
                .hasMessageContaining("PostgreSQL JDBC URL").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> DatabaseUrl.parse("ledger:hunter2@db", null))
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> DatabaseUrl.parse("jdbc:h2:./x", null)).hasMessageContaining("not jdbc:h2:");
        assertThatThrownBy(() -> DatabaseUrl.parse("jdbc:postgresql://db/x?sslpassword=hunter2", null))
                .hasMessageContaining("sslpassword").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> DatabaseUrl.parse(" ", null)).hasMessageContaining("--database needs");
    }
}
