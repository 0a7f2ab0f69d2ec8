package io.standby.bench.chaos;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Appends {@link Checkpoint} lines to one file per node process. Each line is one {@code write} on a file opened for
 * append, so a kill -9 keeps every line written before it (the kernel has it) and loses at most the facts it had not
 * yet written, never half of one that a reader would misread.
 */
final class RunRecorder {

    private final FileOutputStream out;

    RunRecorder(Path file) {
        try {
            Files.createDirectories(file.getParent());
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record to " + file, e);
        }
    }

    synchronized void record(Checkpoint fact) {
        try {
            out.write((fact.line() + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
