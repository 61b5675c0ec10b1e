package io.mcpledger.app;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** The JDK's file errors in words: their messages name only the path, and their class names mean nothing to a user. */
public final class FileErrors {
    private FileErrors() {
    }

    /** What went wrong, without the path: {@code "permission denied"}, {@code "no such file or directory"}, ... */
    public static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** {@link #reason}, then the file it concerns when the error names one: {@code "permission denied: /x/y"}. */
    public static String describe(IOException e) {
        String file = e instanceof FileSystemException fse ? fse.getFile() : null;
        return reason(e) + (file == null ? "" : ": " + file);
    }
}
