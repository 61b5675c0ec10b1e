package io.mcpledger.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class HostPortTest {
    @Test
    void anIpv4AddressAndPortParse() {
        assertThat(HostPort.parse("127.0.0.1:4320")).isEqualTo(new HostPort("127.0.0.1", 4320));
    }

    @Test
    void aHostNameAndPortParse() {
        assertThat(HostPort.parse("ledger.internal:80")).isEqualTo(new HostPort("ledger.internal", 80));
    }

    @Test
    void anIpv6AddressInBracketsParsesWithoutTheBrackets() {
        assertThat(HostPort.parse("[::1]:4320")).isEqualTo(new HostPort("::1", 4320));
        assertThat(HostPort.parse("[fe80::1%eth0]:4320")).isEqualTo(new HostPort("fe80::1%eth0", 4320));
    }

    @Test
    void portZeroAsksForAnyFreePort() {
        assertThat(HostPort.parse("127.0.0.1:0").port()).isZero();
    }

    @Test
    void toStringGivesTheFormItWasParsedFrom() {
        assertThat(HostPort.parse("[::1]:4320")).hasToString("[::1]:4320");
        assertThat(HostPort.parse("0.0.0.0:65535")).hasToString("0.0.0.0:65535");
    }

    @Test
    void theConverterIsTheParser() throws Exception {
        assertThat(new HostPort.Converter().convert("localhost:1")).isEqualTo(new HostPort("localhost", 1));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "localhost|expected HOST:PORT, e.g. 127.0.0.1:4320 or [::1]:4320",
        "[::1]|expected HOST:PORT, e.g. 127.0.0.1:4320 or [::1]:4320",
        "[::1|expected HOST:PORT, e.g. 127.0.0.1:4320 or [::1]:4320",
        "::1:4320|put an IPv6 address in brackets, e.g. [::1]:4320",
        ":4320|the host is missing, e.g. 127.0.0.1:4320 or 0.0.0.0:4320 for every interface",
        "localhost:|the port is missing",
        "[::1]:|the port is missing",
        "localhost:http|'http' is not a port from 0 to 65535",
        "localhost:65536|'65536' is not a port from 0 to 65535",
        "localhost:+80|'+80' is not a port from 0 to 65535",
        "localhost:-1|'-1' is not a port from 0 to 65535",
        "[ledger.internal]:80|'ledger.internal' in brackets is not an IPv6 address",
        "my host:80|'my host' is not a host name or IPv4 address",
        "-ledger:80|'-ledger' is not a host name or IPv4 address",
        "ledger/x:80|'ledger/x' is not a host name or IPv4 address",
    })
    void badAddressesAreRefusedSayingWhy(String text, String why) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'" + text + "' is not a listen address: " + why);
    }

    @Test
    void anEmptyAddressIsRefused() {
        assertThatThrownBy(() -> HostPort.parse(""))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'' is not a listen address: expected HOST:PORT, e.g. 127.0.0.1:4320 or [::1]:4320");
    }

    @Test
    void theRecordRefusesAPortOutOfRange() {
        assertThatThrownBy(() -> new HostPort("localhost", 70000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the port must be from 0 to 65535, got 70000");
    }
}
