package io.mcpledger.app.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A listen address {@code HOST:PORT}: a host name or IPv4 address, or an IPv6 address in brackets
 * ({@code [::1]:4320}). Port 0 asks the system for any free port.
 */
public record HostPort(String host, int port) {
    private static final Pattern BRACKETED = Pattern.compile("\\[([^\\]]*)\\]:([^:]*)");
    private static final Pattern PLAIN = Pattern.compile("([^:\\[\\]]*):([^:]*)");
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    public HostPort {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("the host must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("the port must be from 0 to 65535, got " + port);
        }
    }

    /** The address {@code text} stands for; a {@link CommandLine.TypeConversionException} saying why not. */
    public static HostPort parse(String text) {
        Matcher bracketed = BRACKETED.matcher(text);
        if (bracketed.matches()) {
            String address = bracketed.group(1);
            if (!IPV6.matcher(address).matches()) {
                throw invalid(text, "'" + address + "' in brackets is not an IPv6 address");
            }
            return new HostPort(address, port(text, bracketed.group(2)));
        }
        Matcher plain = PLAIN.matcher(text);
        if (!plain.matches()) {
            if (text.indexOf(':') != text.lastIndexOf(':') && !text.contains("[")) {
                throw invalid(text, "put an IPv6 address in brackets, e.g. [::1]:4320");
            }
            throw invalid(text, "expected HOST:PORT, e.g. 127.0.0.1:4320 or [::1]:4320");
        }
        String host = plain.group(1);
        if (host.isEmpty()) {
            throw invalid(text, "the host is missing, e.g. 127.0.0.1:4320 or 0.0.0.0:4320 for every interface");
        }
        if (!HOST_NAME.matcher(host).matches()) {
            throw invalid(text, "'" + host + "' is not a host name or IPv4 address");
        }
        return new HostPort(host, port(text, plain.group(2)));
    }

    private static int port(String text, String port) {
        if (!PORT.matcher(port).matches() || Integer.parseInt(port) > 65535) {
            throw invalid(text, port.isEmpty() ? "the port is missing" : "'" + port + "' is not a port from 0 to 65535");
        }
        return Integer.parseInt(port);
    }

    private static CommandLine.TypeConversionException invalid(String text, String why) {
        return new CommandLine.TypeConversionException("'" + text + "' is not a listen address: " + why);
    }

    /** {@code host:port}, with an IPv6 host in brackets, as it was given. */
    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** The picocli converter for {@code --listen}. */
    public static final class Converter implements CommandLine.ITypeConverter<HostPort> {
        @Override
        public HostPort convert(String value) {
            return parse(value);
        }
    }
}
