package io.standby.robot.internal;

import com.mongodb.ReadPreference;
import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import io.standby.robot.model.RobotFields;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Change streams on the {@code robots} collection, through the node's own client. */
final class MongoRobotChangeSource implements RobotChangeSource {

    private static final Logger log = LoggerFactory.getLogger(MongoRobotChangeSource.class);

    /**
     * How long the server holds each {@code getMore} open while nothing matches: one round trip per second per node
     * while all is quiet (the server's own default for change streams).
     */
    static final Duration MAX_AWAIT = Duration.ofSeconds(1);
    /**
     * The client-side operation timeout of the stream's commands. The node's client has one ({@code timeoutMS}, a
     * fraction of the heartbeat or a few seconds), and the driver refuses a {@code maxAwaitTime} that is not below it;
     * with a short one every quiet {@code getMore} would time out. So the stream gets its own: the await time plus room
     * for the opening {@code aggregate} to scan the oplog back to a resume point. It bounds how long a hung database
     * can hold the watcher's thread, which holds up nothing else.
     */
    static final Duration TIMEOUT = MAX_AWAIT.plusSeconds(9);

    private final MongoClient client;
    private final MongoDatabase database;
    private final MongoCollection<Document> robots;

    MongoRobotChangeSource(MongoClient client, MongoDatabase database) {
        this.client = client;
        this.database = database;
        this.robots =
                database.getCollection(RobotFields.COLLECTION).withTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Asks the driver what it found the deployment to be. A {@code ping} to any member makes the driver discover it
     * first; the driver's own handshake (legacy {@code isMaster} unless the server says it knows {@code hello}) tells
     * it from {@code setName}, or {@code msg: isdbgrid} from a mongos. So nothing here asks for a change stream, nor
     * sends {@code hello}, which the embedded server does not know.
     */
    @Override
    public boolean offersChangeStreams() {
        database.runCommand(new Document("ping", 1), ReadPreference.nearest());
        return switch (client.getClusterDescription().getType()) {
            case REPLICA_SET, SHARDED, LOAD_BALANCED -> true;
            case STANDALONE -> false;
            case UNKNOWN -> throw new IllegalStateException("the deployment's type is not known yet");
        };
    }

    @Override
    public Stream open(List<Bson> pipeline, BsonDocument resumeAfter) {
        ChangeStreamIterable<Document> changes =
                robots.watch(pipeline).maxAwaitTime(MAX_AWAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (resumeAfter != null) {
            changes = changes.resumeAfter(resumeAfter);
        }
        return new CursorStream(changes.cursor());
    }

    private static final class CursorStream implements Stream {

        private final MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor;

        CursorStream(MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor) {
            this.cursor = cursor;
        }

        @Override
        public BsonDocument tryNext() {
            ChangeStreamDocument<Document> change = cursor.tryNext();
            if (change == null) {
                // An invalidated stream (its collection dropped or renamed) answers null at once, forever.
                if (cursor.getServerCursor() == null) {
                    throw new IllegalStateException("the change stream on robots has ended");
                }
                return null;
            }
            BsonDocument event = new BsonDocument("_id", change.getResumeToken());
            if (change.getOperationTypeString() != null) {
                event.append("operationType", new BsonString(change.getOperationTypeString()));
            }
            if (change.getDocumentKey() != null) {
                event.append("documentKey", change.getDocumentKey());
            }
            return event;
        }

        @Override
        public BsonDocument resumeToken() {
            return cursor.getResumeToken();
        }

        @Override
        public void close() {
            try {
                cursor.close();
            } catch (RuntimeException e) {
                // The server drops an abandoned cursor by itself after ten minutes.
                log.debug("Could not close a change stream on robots: {}", e.toString());
            }
        }
    }
}
