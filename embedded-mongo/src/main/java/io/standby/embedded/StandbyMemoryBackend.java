package io.standby.embedded;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import java.time.Clock;

/**
 * mongo-java-server's in-memory backend, taught {@link UnionWith $unionWith}: a node's poll on it is one command, as on
 * MongoDB 4.4 and later. A plain {@link MemoryBackend} works too; its polls take two. It answers {@link Hello hello}
 * too.
 */
public class StandbyMemoryBackend extends MemoryBackend {

    public StandbyMemoryBackend() {}

    /** A server whose clock is {@code clock}: a test's server that runs ahead of its clients. */
    public StandbyMemoryBackend(Clock clock) {
        super(clock);
    }

    @Override
    public Document handleCommand(Channel channel, String database, String command, Document query) {
        if (UnionWith.appliesTo(command, query)) {
            return UnionWith.run(query, q -> super.handleCommand(channel, database, command, q));
        }
        if (Hello.appliesTo(command)) {
            return Hello.answer(() -> super.handleCommand(channel, database, "isMaster", query));
        }
        return super.handleCommand(channel, database, command, query);
    }
}
