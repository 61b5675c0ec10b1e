package io.mcpledger.app.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Reads and writes at a position of a file, whole: a channel may transfer fewer bytes than asked at a time. */
final class FileChannels {
    private FileChannels() {
    }

    /** {@code length} bytes from {@code at}, or up to the end of the file (the rest left zero). */
    static byte[] read(FileChannel file, long at, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (file.read(buffer, at + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.array();
    }

    /** Writes what remains of {@code bytes} from {@code at} on. */
    static void write(FileChannel file, long at, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            file.write(bytes, at + bytes.position());
        }
    }
}
