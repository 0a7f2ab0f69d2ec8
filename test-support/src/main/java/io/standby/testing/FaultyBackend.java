package io.standby.testing;

import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import io.standby.embedded.StandbyMemoryBackend;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded in-memory server with faults a replica set produces and a standalone never does: a write that the server
 * applied but reports with a {@code writeConcernError} (as when a primary cannot get its write to a majority in time).
 * Serve it with {@link TestMongo#startEmbedded(StandbyMemoryBackend)}.
 */
public final class FaultyBackend extends StandbyMemoryBackend {

    private final Map<String, AtomicInteger> writeConcernFailures = new ConcurrentHashMap<>();

    /**
     * The next {@code times} update commands on {@code collection} are applied but answered with a write-concern error.
     */
    public void failWriteConcern(String collection, int times) {
        writeConcernFailures.put(collection, new AtomicInteger(times));
    }

    @Override
    public Document handleCommand(Channel channel, String database, String command, Document query) {
        Document reply = super.handleCommand(channel, database, command, query);
        if (command.equals("update") && query.get("update") instanceof String collection) {
            AtomicInteger left = writeConcernFailures.get(collection);
            if (left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                Document error = new Document();
                error.put("code", 64);
                error.put("codeName", "WriteConcernFailed");
                error.put("errmsg", "waiting for replication timed out");
                error.put("errInfo", new Document("wtimeout", true));
                reply.put("writeConcernError", error);
            }
        }
        return reply;
    }
}
