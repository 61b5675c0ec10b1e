package io.mcpledger.app.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.store.fs.FilePath;

/**
 * Recovers every complete commit of a store that was not closed cleanly ({@code kill -9}, a crash, a power loss).
 *
 * <p>Why: on open, H2 finds the newest chunk by following its store header and the chain of chunks it predicted
 * after it, and by the chunk at the end of the file. When H2 wrote a chunk into reused space where it had not
 * predicted one, the header it rewrote still names the chunk before; if the process then dies while writing the
 * next chunk at the end of the file, that torn chunk hides the newer ones, and H2 opens an older version: commits
 * that had been written, forced and answered are gone (seen here after a {@code kill -9} under load on a 477 MB file:
 * chunks 14708 and 14709 complete in the middle of the file, the header on 14707, 14710 torn at the end). The full
 * scan of MVStore's recovery mode reads every chunk in the file and takes the newest complete set, which holds every
 * acknowledged commit. It reads the whole file, so it runs only when the last run did not close the store: a marker
 * file exists from the open to the end of a clean close.
 */
final class StoreRecovery {
    /** Present while a process has the database open, and after one that died with it open. */
    static final String MARKER = "ledger.running";

    private StoreRecovery() {
    }

    /** True when the database file exists and the last process to open it did not close it cleanly. */
    static boolean needed(Path stateDirectory) {
        return Files.exists(stateDirectory.resolve(MARKER)) && Files.exists(stateDirectory.resolve(H2Database.FILE_NAME));
    }

    /**
     * Opens the store at {@code storeFile} (an H2 file name, with any file system prefix) with the full scan, which
     * settles on the newest complete version, and closes it, which writes a header naming that version.
     */
    static void recover(Path stateDirectory, String storeFile) throws StorageException {
        requireUnlocked(stateDirectory, storeFile);
        try {
            MVStore store = new MVStore.Builder().fileName(storeFile).recoveryMode().autoCommitDisabled().open();
            store.close();
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                throw StateInUseException.at(stateDirectory, e);
            }
            throw new StorageException("the ledger database " + stateDirectory.resolve(H2Database.FILE_NAME)
                    + " was not closed cleanly and cannot be recovered: " + e.getMessage()
                    + "; restore it from a backup", e);
        }
    }

    /**
     * The marker is also there while another process runs on this state; that one holds the file's lock, and this one
     * must say so rather than start a recovery.
     */
    private static void requireUnlocked(Path stateDirectory, String storeFile) throws StorageException {
        try (FileChannel file = FilePath.get(storeFile).open("rw"); FileLock lock = file.tryLock()) {
            if (lock == null) {
                throw StateInUseException.at(stateDirectory, null);
            }
        } catch (OverlappingFileLockException e) {
            throw StateInUseException.at(stateDirectory, e);
        } catch (IOException e) {
            throw new StorageException("cannot open " + stateDirectory.resolve(H2Database.FILE_NAME) + ": "
                    + e.getMessage(), e);
        }
    }

    /** Records, on stable storage, that a process has the database open. */
    static void markOpen(Path stateDirectory) throws StorageException {
        Path marker = stateDirectory.resolve(MARKER);
        try {
            try {
                Files.createFile(marker, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException e) {
                // Left by a process that died: still true, and the recovery above has run.
            }
            try (FileChannel file = FileChannel.open(marker, StandardOpenOption.WRITE)) {
                file.force(true);
            }
            forceDirectory(stateDirectory);
        } catch (IOException e) {
            throw new StorageException("cannot write " + marker + ": " + e.getMessage(), e);
        }
    }

    /** Records that the database was closed cleanly: the next open needs no recovery. */
    static void markClosed(Path stateDirectory) throws IOException {
        Files.deleteIfExists(stateDirectory.resolve(MARKER));
        forceDirectory(stateDirectory);
    }

    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
