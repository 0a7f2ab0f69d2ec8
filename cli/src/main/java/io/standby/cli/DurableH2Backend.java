package io.standby.cli;

import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import io.standby.embedded.Hello;
import io.standby.embedded.UnionWith;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.h2.mvstore.MVStore;

/**
 * mongo-java-server's H2 backend with every acknowledged write on disk: a command that can change data is committed and
 * the file forced ({@code fsync}) before its reply is sent. The plain backend commits in the background about once a
 * second, so a killed server lost up to the last second of acknowledged writes.
 *
 * <p>The reply waits because the server's netty threads call {@link #handleCommand} and send what it returns. Not
 * covered: what the operating system and disk do after {@code fsync} returns, and reads, which may see another client's
 * write a moment before it is durable (as with MongoDB's read concern {@code local}).
 */
final class DurableH2Backend extends H2Backend {

    private final GroupCommit commits;

    private DurableH2Backend(MVStore store) {
        super(store);
        this.commits = new GroupCommit(store);
    }

    /**
     * Opens (or creates) the data file.
     *
     * @throws IllegalStateException if the file cannot be opened, e.g. another process holds it
     */
    static DurableH2Backend open(Path file) {
        MVStore store = new MVStore.Builder()
                .fileName(file.toString())
                // no background commits and no commits when unsaved changes pile up: every commit is
                // one of GroupCommit's, taken between whole commands and followed by an fsync
                .autoCommitDisabled()
                .autoCommitBufferSize(0)
                .open();
        syncDirectory(file.toAbsolutePath().getParent());
        return new DurableH2Backend(store);
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        return QuietErrors.handle(message, super::handleMessage);
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        if (UnionWith.appliesTo(command, query)) {
            // A read: each part goes through this method again, without the stage.
            return UnionWith.run(query, q -> handleCommand(channel, databaseName, command, q));
        }
        if (Hello.appliesTo(command)) {
            return Hello.answer(() -> super.handleCommand(channel, databaseName, "isMaster", query));
        }
        if (ReadOnlyCommands.contains(command, query)) {
            return super.handleCommand(channel, databaseName, command, query);
        }
        return commits.durably(() -> super.handleCommand(channel, databaseName, command, query));
    }

    /** A new file's name is only durable once its directory is; a no-op on file systems that refuse it. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // some platforms cannot open a directory for reading; the file's contents are still synced
        }
    }
}
