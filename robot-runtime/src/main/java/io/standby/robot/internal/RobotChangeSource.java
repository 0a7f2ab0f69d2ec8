package io.standby.robot.internal;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.conversions.Bson;

/**
 * Where a {@link RobotChangeWatcher} gets its change streams: the robots collection in production
 * ({@link MongoRobotChangeSource}), a script in tests, since no replica set runs where the tests do.
 */
interface RobotChangeSource {

    /**
     * Whether the database offers change streams at all, found out without asking for one (a standalone server, the
     * embedded one included, has none; the embedded one logs a stack trace when asked).
     *
     * @throws RuntimeException if it cannot tell yet, for example because the database is unreachable
     */
    boolean offersChangeStreams();

    /**
     * Opens a change stream on the robots with this pipeline.
     *
     * @param resumeAfter where to resume, or null to start from now
     * @throws RuntimeException as the driver does; see {@link ChangeStreamFailure}
     */
    Stream open(List<Bson> pipeline, BsonDocument resumeAfter);

    /** An open change stream. Used by one thread at a time. */
    interface Stream extends AutoCloseable {

        /**
         * The next event (as the pipeline shaped it), or null if none came within the server's await time. Returns
         * within about that await time unless the database hangs.
         */
        BsonDocument tryNext();

        /** Where to resume so as to miss nothing seen so far, or null if the server gave none yet. */
        BsonDocument resumeToken();

        /** Closes the stream; best effort, never throws. */
        @Override
        void close();
    }
}
