package io.mcpledger.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract's HTTP framing (section 11) through the packaged jar, with raw sockets: a request carrying both
 * {@code Content-Length} and {@code Transfer-Encoding} is 400 and its connection closed, before anything after it on
 * the connection runs; a request head over 16 KiB is 414 (request line) or 431 (headers), one under it is served; a
 * connection that dribbles its head, or sends none, is closed at the head deadline, and one idle between requests at
 * the idle timeout.
 */
class HttpFramingIT {
    @TempDir
    Path work;

    @Test
    void framingIsRefusedAndSlowOrIdleConnectionsAreClosed() throws Exception {
        try (LedgerProcess ledger = LedgerProcess.serve(work,
                List.of("-Dledger.http.head-timeout=2s", "-Dmicronaut.server.idle-timeout=3s"))) {
            int port = ledger.port;
            long receipts = receipts(port);

            // Both lengths: the body is not read as chunked, and the GET behind it never runs (a smuggled request).
            Exchange smuggled = exchange(port, "POST /v1/sessions HTTP/1.1\r\nHost: l\r\nContent-Length: 4\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: l\r\n\r\n");
            assertThat(smuggled.text()).startsWith("HTTP/1.1 400 ").contains("connection: close")
                    .endsWith("{\"error\":{\"code\":\"invalid_request\",\"message\":\"a request may not carry both"
                            + " Content-Length and Transfer-Encoding; send one\"}}")
                    .containsOnlyOnce("HTTP/1.1 ");
            assertThat(smuggled.closed()).as("the connection is closed").isTrue();

            Exchange longTarget = exchange(port, "GET /" + "a".repeat(17_000) + " HTTP/1.1\r\nHost: l\r\n\r\n");
            assertThat(longTarget.text()).startsWith("HTTP/1.1 414 ")
                    .endsWith("{\"error\":{\"code\":\"uri_too_long\",\"message\":\"the request line is longer than 16"
                            + " KiB\"}}");
            assertThat(longTarget.closed()).isTrue();

            Exchange longHeaders = exchange(port, "GET /health HTTP/1.1\r\nHost: l\r\nX-Pad: " + "a".repeat(17_000)
                    + "\r\n\r\n");
            assertThat(longHeaders.text()).startsWith("HTTP/1.1 431 ")
                    .endsWith("{\"error\":{\"code\":\"headers_too_large\",\"message\":\"the request's headers are"
                            + " larger than 16 KiB\"}}");
            assertThat(longHeaders.closed()).isTrue();

            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: l\r\nX-Pad: " + "a".repeat(12_000)
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                socket.setSoTimeout(5_000);
                assertThat(new String(socket.getInputStream().readNBytes(15), StandardCharsets.US_ASCII))
                        .as("a 12 KiB head is within the limit").isEqualTo("HTTP/1.1 200 OK");
            }

            // A head sent one byte every 300 ms is cut at the deadline (2 s here, 30 s by default).
            try (Socket socket = new Socket("127.0.0.1", port)) {
                long start = System.nanoTime();
                byte[] head = "GET /health HTTP/1.1\r\nHost: l\r\nX-Slow: yes\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                boolean cut = false;
                for (byte b : head) {
                    try {
                        socket.getOutputStream().write(b);
                        socket.getOutputStream().flush();
                    } catch (IOException e) {
                        cut = true;
                        break;
                    }
                    Thread.sleep(300);
                    if (closedWithin(socket, Duration.ofMillis(1))) {
                        cut = true;
                        break;
                    }
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(cut).as("closed before the %d-byte head was whole", head.length).isTrue();
                assertThat(took).isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(6));
            }

            // A connection that sends nothing is also held to the head deadline.
            try (Socket socket = new Socket("127.0.0.1", port)) {
                long start = System.nanoTime();
                assertThat(closedWithin(socket, Duration.ofSeconds(10))).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(5));
            }

            // After an answer, a kept-alive connection may idle until the idle timeout (3 s here, 60 s by default).
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: l\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                socket.setSoTimeout(5_000);
                assertThat(response(socket.getInputStream())).startsWith("HTTP/1.1 200 OK").endsWith("}");
                long start = System.nanoTime();
                assertThat(closedWithin(socket, Duration.ofSeconds(10))).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .isBetween(Duration.ofMillis(2_500), Duration.ofSeconds(6));
            }

            assertThat(receipts(port)).as("nothing was appended").isEqualTo(receipts);
        }
    }

    private record Exchange(String text, boolean closed) {
    }

    /** Sends {@code request} on a new connection and reads until the ledger closes it (or 10 s pass). */
    private static Exchange exchange(int port, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(10_000);
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    read.write(buffer, 0, n);
                }
                return new Exchange(read.toString(StandardCharsets.UTF_8), true);
            } catch (SocketTimeoutException e) {
                return new Exchange(read.toString(StandardCharsets.UTF_8), false);
            }
        }
    }

    /** One whole response: its head, then as many body bytes as its {@code content-length} says. */
    private static String response(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("a whole response head, got %s", head).isNotNegative();
            head.write(b);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        int length = Integer.parseInt(text.replaceAll("(?is).*\r\ncontent-length: *(\\d+)\r\n.*", "$1"));
        return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    /** Whether the ledger closes the connection within {@code wait}, reading nothing else. */
    private static boolean closedWithin(Socket socket, Duration wait) throws IOException {
        socket.setSoTimeout((int) Math.max(1, wait.toMillis()));
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** {@code GET /health}'s receipt count. */
    private static long receipts(int port) throws IOException {
        Exchange health = exchange(port, "GET /health HTTP/1.1\r\nHost: l\r\nConnection: close\r\n\r\n");
        String text = health.text();
        int at = text.indexOf("\"receipts\":");
        assertThat(at).as(text).isNotNegative();
        return Long.parseLong(text.substring(at + 11).replaceAll("(?s)^(\\d+).*", "$1"));
    }
}
