package io.mcpledger.app.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free port on the loopback address that a server can listen on again after it stopped: one below the kernel's
 * ephemeral range. A port {@code new ServerSocket(0)} hands out comes from that range, where any process's next outgoing
 * connection may take it as its local port the moment the server lets go of it, and the restart then fails with
 * "Address already in use" (seen when the demo or a test restarts the edge while other work runs on the machine).
 */
public final class RestartablePorts {
    /** Linux's default ephemeral range starts here; {@code /proc/sys/net/ipv4/ip_local_port_range} says where it does. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;
    private static final int LOWEST = 10000;
    private static final int ATTEMPTS = 200;

    private RestartablePorts() {
    }

    /** A port below the ephemeral range that no socket of this machine holds now. */
    public static int pick() {
        int high = ephemeralLow();
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, high);
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return probe.getLocalPort();
            } catch (IOException taken) {
                // another one
            }
        }
        throw new UncheckedIOException(new IOException("no free port between " + LOWEST + " and " + high + " after "
                + ATTEMPTS + " tries"));
    }

    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return low > LOWEST + 1000 ? low : DEFAULT_EPHEMERAL_LOW;
        } catch (IOException | RuntimeException unreadable) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }
}
