package io.mcpledger.app.testing;

import io.mcpledger.app.storage.H2Database;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

/** Files and child-process output for the tests and benchmarks that run the ledger as a process. */
public final class TestIo {
    private TestIo() {
    }

    /** What a command printed and its exit status. */
    public record Run(int exit, String out, String err) {
    }

    /** Runs a picocli command line with {@code args}, capturing what it prints. */
    public static Run run(picocli.CommandLine commandLine, String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        commandLine.setOut(new java.io.PrintWriter(out, true));
        commandLine.setErr(new java.io.PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /**
     * Drops the transparency log's tables of a stopped ledger, as if it had died between append and integration:
     * the events stay, the tree is gone.
     */
    public static void dropLogTables(Path state) throws Exception {
        try (H2Database database = H2Database.open(state); Connection c = database.dataSource().getConnection();
             Statement s = c.createStatement()) {
            for (String table : List.of("log_head", "log_tile", "log_checkpoint")) {
                s.execute("DROP TABLE " + table);
            }
            c.commit();
        }
    }

    /** Copies a directory and everything below it to {@code to}, keeping the files' attributes. */
    public static void copyTree(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory and everything below it; nothing happens when it does not exist. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Reads a process's output into {@code lines} on a daemon thread until the stream ends; what was read is kept. */
    public static Thread collectLines(InputStream in, List<String> lines) {
        Thread t = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // The process ended; what was read is kept.
            }
        }, "ledger-output");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
