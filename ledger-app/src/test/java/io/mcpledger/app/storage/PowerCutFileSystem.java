package io.mcpledger.app.storage;

import io.mcpledger.app.testing.TestIo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.store.fs.FileBase;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * A disk that loses power: an H2 file system ({@code powercut:} before a path) whose files keep every write and
 * truncation that was not yet forced in memory, as a disk cache does, and apply them to the real file only at {@code
 * force}. Reads see the pending writes, so H2 runs as on a real disk. {@link #cut} fails every later operation and
 * leaves on the real file what had been forced plus what a disk losing power may have written of the rest: any
 * subset of the pending writes, in any order, each possibly torn after any 4 KiB block.
 */
public final class PowerCutFileSystem extends FilePathWrapper {
    /** The scheme to put before a path, as {@code H2Database.open(dir, pool, PowerCutFileSystem.PREFIX, ...)} does. */
    public static final String PREFIX = "powercut:";
    private static final PowerCutFileSystem INSTANCE = new PowerCutFileSystem();
    private static final Set<PowerCutChannel> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean cut;
    private static final AtomicLong BYTES_READ = new AtomicLong();

    /** Registers the scheme with H2 (once is enough) and restores power for files opened from now on. */
    public static void install() {
        FilePath.register(INSTANCE);
        cut = false;
    }

    /**
     * The power fails: every file operation from now on fails, and of the writes not yet forced {@code random} picks
     * which reach the disk, and how much of each.
     */
    public static void cut(Random random) {
        cut = true;
        for (PowerCutChannel channel : OPEN) {
            channel.persistSome(random);
        }
    }

    /**
     * The process dies ({@code kill -9}) but the machine does not: every file operation from now on fails, and every
     * write not yet forced reaches the disk, whole, as the page cache writes it.
     */
    public static void kill() {
        cut = true;
        for (PowerCutChannel channel : OPEN) {
            channel.persistAll();
        }
    }

    /**
     * The machine comes back: what reached the disk of {@code state} is copied to {@code next}, on which the next cycle
     * starts (the dead process's files, still open, keep failing), and power is restored for files opened from now on.
     * Returns {@code next}.
     */
    public static Path restart(Path state, Path next) throws IOException {
        TestIo.copyTree(state, next);
        install();
        return next;
    }

    /** True from a {@link #cut} until the next {@link #install}. */
    public static boolean isCut() {
        return cut;
    }

    /** Bytes read through this file system so far, by every file: what a recovery or an open costs. */
    public static long bytesRead() {
        return BYTES_READ.get();
    }

    @Override
    public String getScheme() {
        return "powercut";
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        checkPower();
        return new PowerCutChannel(super.open(mode));
    }

    private static void checkPower() throws IOException {
        if (cut) {
            throw new IOException("the power is cut");
        }
    }

    private static void checkPower(PowerCutChannel channel) throws IOException {
        if (cut || channel.dead) {
            throw new IOException("the power is cut");
        }
    }

    /** One pending change of the file: bytes written at a position, or a truncation (data null). */
    private record Change(long position, byte[] data) {
    }

    private static final class PowerCutChannel extends FileBase {
        private static final int BLOCK = 4096;
        private final FileChannel base;
        private final List<Change> pending = new ArrayList<>();
        private long size;
        private long position;
        /** Set at a cut: no later write of this file's process reaches the disk, even once power is back. */
        private volatile boolean dead;

        PowerCutChannel(FileChannel base) throws IOException {
            this.base = base;
            this.size = base.size();
            OPEN.add(this);
        }

        synchronized void persistSome(Random random) {
            dead = true;
            if (!base.isOpen()) {
                return; // closed while the cut began: its writes were forced at the close
            }
            try {
                for (Change change : pending) {
                    if (!random.nextBoolean()) {
                        continue;
                    }
                    if (change.data() == null) {
                        base.truncate(change.position());
                    } else {
                        int blocks = (change.data().length + BLOCK - 1) / BLOCK;
                        int kept = Math.min(change.data().length, BLOCK * (1 + random.nextInt(blocks)));
                        base.write(ByteBuffer.wrap(change.data(), 0, kept), change.position());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                pending.clear();
            }
        }

        synchronized void persistAll() {
            dead = true;
            if (!base.isOpen()) {
                return;
            }
            try {
                apply();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Writes every pending change to the real file, in order. */
        private void apply() throws IOException {
            for (Change change : pending) {
                if (change.data() == null) {
                    base.truncate(change.position());
                } else {
                    ByteBuffer bytes = ByteBuffer.wrap(change.data());
                    while (bytes.hasRemaining()) {
                        base.write(bytes, change.position() + bytes.position());
                    }
                }
            }
            pending.clear();
        }

        @Override
        public synchronized int read(ByteBuffer dst, long at) throws IOException {
            checkPower(this);
            int length = (int) Math.min(dst.remaining(), size - at);
            if (length <= 0) {
                return -1;
            }
            byte[] bytes = new byte[length];
            ByteBuffer fromBase = ByteBuffer.wrap(bytes);
            while (fromBase.hasRemaining()) {
                int n = base.read(fromBase, at + fromBase.position());
                if (n < 0) {
                    break;
                }
            }
            for (Change change : pending) {
                if (change.data() == null) {
                    for (long p = Math.max(at, change.position()); p < at + length; p++) {
                        bytes[(int) (p - at)] = 0;
                    }
                } else {
                    long from = Math.max(at, change.position());
                    long to = Math.min(at + length, change.position() + change.data().length);
                    if (from < to) {
                        System.arraycopy(change.data(), (int) (from - change.position()), bytes, (int) (from - at),
                                (int) (to - from));
                    }
                }
            }
            dst.put(bytes);
            BYTES_READ.addAndGet(length);
            return length;
        }

        @Override
        public synchronized int write(ByteBuffer src, long at) throws IOException {
            checkPower(this);
            byte[] data = new byte[src.remaining()];
            src.get(data);
            pending.add(new Change(at, data));
            size = Math.max(size, at + data.length);
            return data.length;
        }

        @Override
        public synchronized int read(ByteBuffer dst) throws IOException {
            int n = read(dst, position);
            if (n > 0) {
                position += n;
            }
            return n;
        }

        @Override
        public synchronized int write(ByteBuffer src) throws IOException {
            int n = write(src, position);
            position += n;
            return n;
        }

        @Override
        public synchronized long position() {
            return position;
        }

        @Override
        public synchronized FileChannel position(long newPosition) {
            position = newPosition;
            return this;
        }

        @Override
        public synchronized long size() throws IOException {
            checkPower(this);
            return size;
        }

        @Override
        public synchronized FileChannel truncate(long newSize) throws IOException {
            checkPower(this);
            if (newSize < size) {
                pending.add(new Change(newSize, null));
                size = newSize;
            }
            position = Math.min(position, newSize);
            return this;
        }

        @Override
        public synchronized void force(boolean metaData) throws IOException {
            checkPower(this);
            apply();
            base.force(metaData);
        }

        @Override
        public synchronized FileLock tryLock(long at, long length, boolean shared) throws IOException {
            checkPower(this);
            return base.tryLock(at, length, shared);
        }

        @Override
        protected synchronized void implCloseChannel() throws IOException {
            OPEN.remove(this);
            // Without a cut, what was written reaches the disk in time, as the page cache would write it.
            if (!cut && !dead) {
                force(false);
            }
            base.close();
        }
    }
}
