package io.standby.robot.internal;

import com.mongodb.MongoInterruptedException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.conversions.Bson;

/**
 * A change-stream source that plays a script: what {@link #offersChangeStreams} answers, what each {@link #open} does
 * (fail, or return a stream the test feeds), and a record of every attempt.
 */
final class ScriptedChangeSource implements RobotChangeSource {

    /** One call of {@link #open}: its arguments, and the stream it returned (null if it failed). */
    record Attempt(List<Bson> pipeline, BsonDocument resumeAfter, Fed stream) {}

    volatile Supplier<Boolean> offers = () -> true;
    final List<Attempt> attempts = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Object> openings = new ConcurrentLinkedQueue<>();

    /** The next open fails with this. */
    ScriptedChangeSource failOpen(RuntimeException e) {
        openings.add(e);
        return this;
    }

    /** The next open returns this stream. Once the script runs out, opens return fresh quiet streams. */
    ScriptedChangeSource openTo(Fed stream) {
        openings.add(stream);
        return this;
    }

    @Override
    public boolean offersChangeStreams() {
        return offers.get();
    }

    @Override
    public Stream open(List<Bson> pipeline, BsonDocument resumeAfter) {
        Object next = openings.poll();
        if (next instanceof RuntimeException e) {
            attempts.add(new Attempt(pipeline, resumeAfter, null));
            throw e;
        }
        Fed stream = next == null ? new Fed() : (Fed) next;
        attempts.add(new Attempt(pipeline, resumeAfter, stream));
        return stream;
    }

    Attempt attempt(int i) {
        return attempts.get(i);
    }

    /** The event a stream delivers for {@code name}, with {@code name} standing in for the resume token. */
    static BsonDocument event(String name) {
        return new BsonDocument("_id", token(name)).append("operationType", new BsonString("update"));
    }

    static BsonDocument token(String name) {
        return new BsonDocument("_data", new BsonString(name));
    }

    /**
     * A stream the test feeds with events and failures. Like a real one, it waits a little for the next event (so an
     * idle watcher does not spin), and a read interrupted by close fails.
     */
    static final class Fed implements Stream {

        private final BlockingQueue<Object> items = new LinkedBlockingQueue<>();
        private volatile BsonDocument token;
        volatile boolean closed;

        Fed deliver(String... names) {
            for (String name : names) {
                items.add(event(name));
            }
            return this;
        }

        Fed fail(RuntimeException e) {
            items.add(e);
            return this;
        }

        @Override
        public BsonDocument tryNext() {
            Object item;
            try {
                item = items.poll(10, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new MongoInterruptedException("interrupted", e);
            }
            if (item instanceof RuntimeException e) {
                throw e;
            }
            BsonDocument event = (BsonDocument) item;
            if (event != null) {
                token = event.getDocument("_id");
            }
            return event;
        }

        @Override
        public BsonDocument resumeToken() {
            return token;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
