package io.standby.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --mongo URI}, for the tools that otherwise start the embedded database in a process of their own: a server
 * that is already running, which the tool uses and leaves running. The databases the tool uses on it must not exist yet
 * ({@link Database#initSlots} refuses slots that are there). The bench's tests run their tools on one such server, and
 * so start one database process instead of one per tool run.
 */
public final class MongoOption {

    @Option(
            names = "--mongo",
            paramLabel = "URI",
            description =
                    "A server already running (e.g. standby mongo --in-memory), used instead of starting the embedded "
                            + "database; the tool's databases on it must not exist yet (default: the tool starts "
                            + "its own).")
    String uri;

    /** The server this run uses: the one given, or an embedded one of its own, logging to {@code logs}. */
    public Database open(Path logs) {
        return Database.inMemoryOr(uri, logs);
    }
}
