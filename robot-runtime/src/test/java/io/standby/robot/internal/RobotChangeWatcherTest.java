package io.standby.robot.internal;

import static io.standby.robot.internal.ScriptedChangeSource.token;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.ServerAddress;
import io.standby.robot.internal.RobotChangeWatcher.Status;
import io.standby.robot.internal.ScriptedChangeSource.Fed;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The watcher's restarts, against a scripted source (no replica set runs here) with a clock and a sleeper that only
 * move when told: no test waits for real except for the watcher's thread to act.
 */
class RobotChangeWatcherTest {

    private static final Set<String> SLOT_0 = Set.of("slot-0");

    private final ScriptedChangeSource source = new ScriptedChangeSource();
    private final AtomicInteger wakes = new AtomicInteger();
    private final AtomicLong nanos = new AtomicLong();
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private final List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            logged.add(event);
        }
    };
    private RobotChangeWatcher watcher;

    @BeforeEach
    void captureLog() {
        capture.start();
        logger().addAppender(capture);
    }

    @AfterEach
    void stop() {
        if (watcher != null) {
            watcher.close();
        }
        logger().detachAppender(capture);
    }

    @Test
    void aStreamOpensForTheSlotsAndEachMatchingEventWakesTheLoopOnce() {
        Fed stream = new Fed();
        source.openTo(stream);
        watcher = started(SLOT_0);

        await().until(() -> wakes.get() == 1);
        assertEquals(Status.WATCHING, watcher.status());
        assertEquals(RobotChanges.pipeline(SLOT_0), source.attempt(0).pipeline());
        assertNull(source.attempt(0).resumeAfter(), "the first stream starts from now");

        stream.deliver("e1", "e2");
        await().until(() -> wakes.get() == 3);
        assertEquals(1, source.attempts.size());
        assertEquals(List.of(), sleeps);
    }

    @Test
    void transientFailuresToOpenBackOffDoublingUpToACapAndTheStreamThatOpensWakesOnce() {
        for (int i = 0; i < 8; i++) {
            source.failOpen(
                    i % 2 == 0 ? notWritablePrimary() : new MongoSocketOpenException("refused", new ServerAddress()));
        }
        watcher = started(SLOT_0);

        await().until(() -> watcher.status() == Status.WATCHING && wakes.get() == 1);
        assertEquals(ms(500, 1000, 2000, 4000, 8000, 16000, 30000, 30000), sleeps);
        assertEquals(9, source.attempts.size());
        source.attempts.forEach(a -> assertNull(a.resumeAfter()));
        assertEquals(1, count(Level.WARN), "one warning per outage, not one per attempt: " + logged);
    }

    @Test
    void aStreamThatFailsResumesAfterTheLastEventSeenAndWakesOnce() {
        source.openTo(new Fed().deliver("e1", "e2").fail(notWritablePrimary()));
        watcher = started(SLOT_0);

        await().until(() -> source.attempts.size() == 2 && wakes.get() == 4); // open, e1, e2, reopen
        assertEquals(token("e2"), source.attempt(1).resumeAfter());
        assertEquals(RobotChanges.pipeline(SLOT_0), source.attempt(1).pipeline());
        assertTrue(source.attempt(0).stream().closed);
        assertEquals(ms(500), sleeps);
    }

    @ParameterizedTest(name = "error {0}")
    @ValueSource(ints = {286, 280, 260, 136})
    void whenTheServerNoLongerHasTheResumePointTheStreamStartsAfresh(int code) {
        source.openTo(new Fed().deliver("e1").fail(notWritablePrimary())).failOpen(commandError(code, "cannot resume"));
        watcher = started(SLOT_0);

        await().until(() -> source.attempts.size() == 3 && watcher.status() == Status.WATCHING);
        assertEquals(token("e1"), source.attempt(1).resumeAfter());
        assertNull(source.attempt(2).resumeAfter());
        assertEquals(ms(500, 1000), sleeps);
    }

    @Test
    void otherSlotsReopenTheStreamWithTheirPipelineResumingAfterTheLastEventAndWakeOnce() {
        Fed first = new Fed().deliver("e1");
        source.openTo(first);
        watcher = started(SLOT_0);
        await().until(() -> wakes.get() == 2);

        watcher.slots(Set.of("slot-1", "slot-0"));
        await().until(() -> source.attempts.size() == 2 && wakes.get() == 3);
        assertEquals(
                RobotChanges.pipeline(Set.of("slot-0", "slot-1")),
                source.attempt(1).pipeline());
        assertEquals(token("e1"), source.attempt(1).resumeAfter());
        assertTrue(first.closed);

        watcher.slots(Set.of("slot-0", "slot-1")); // the same set: nothing to reopen
        watcher.slots(Set.of("slot-1"));
        await().until(() -> source.attempts.size() >= 3);
        assertEquals(RobotChanges.pipeline(Set.of("slot-1")), source.attempt(2).pipeline());
        assertEquals(3, source.attempts.size());
        assertEquals(List.of(), sleeps, "a reopen for other slots is no failure");
    }

    @Test
    void noSlotsNoStream() {
        watcher = started(Set.of());
        await().until(() -> watcher.status() == Status.IDLE);
        assertEquals(List.of(), source.attempts);

        watcher.slots(SLOT_0);
        await().until(() -> watcher.status() == Status.WATCHING);
        Fed stream = source.attempt(0).stream();

        watcher.slots(Set.of());
        await().until(() -> watcher.status() == Status.IDLE && stream.closed);
        assertEquals(1, source.attempts.size());
        assertEquals(1, wakes.get());
    }

    @Test
    void aStandaloneServerIsNeverAskedForAStream() {
        source.offers = () -> false;
        watcher =
                new RobotChangeWatcher(source, Duration.ofSeconds(1), wakes::incrementAndGet, nanos::get, sleeps::add);
        watcher.slots(SLOT_0);
        watcher.start();

        await().until(() -> !watcher.running());
        assertEquals(Status.UNAVAILABLE, watcher.status());
        assertEquals(List.of(), source.attempts);
        assertEquals(0, wakes.get());
        assertEquals(
                List.of("No change streams on a standalone server; robots are re-read every 1s"), messages(Level.INFO));
    }

    @Test
    void anAnswerThatChangeStreamsAreUnsupportedIsNeverRetried() {
        source.failOpen(commandError(40573, "The $changeStream stage is only supported on replica sets"));
        watcher = started(SLOT_0);

        await().until(() -> !watcher.running());
        assertEquals(Status.UNAVAILABLE, watcher.status());
        assertEquals(1, source.attempts.size());
        assertEquals(List.of(), sleeps);
        assertEquals(0, count(Level.WARN));
        assertEquals(1, count(Level.INFO));
    }

    @Test
    void whenItCannotTellYetWhetherTheDatabaseHasChangeStreamsItAsksAgainLater() {
        AtomicInteger asked = new AtomicInteger();
        source.offers = () -> {
            if (asked.incrementAndGet() <= 2) {
                throw new MongoSocketOpenException("refused", new ServerAddress());
            }
            return true;
        };
        watcher = started(SLOT_0);

        await().until(() -> watcher.status() == Status.WATCHING);
        assertEquals(3, asked.get());
        assertEquals(ms(500, 1000), sleeps);
    }

    @Test
    void aStreamThatRanForAWhileEndsTheOutageAndTheNextFailureStartsTheBackoffAgain() {
        Fed proven = new Fed();
        source.failOpen(notWritablePrimary())
                .failOpen(notWritablePrimary())
                .failOpen(notWritablePrimary())
                .openTo(proven);
        watcher = started(SLOT_0);
        await().until(() -> watcher.status() == Status.WATCHING);
        assertEquals(ms(500, 1000, 2000), sleeps);

        nanos.addAndGet(RobotChangeWatcher.PROVEN.toNanos());
        proven.deliver("e1");
        await().until(() -> messages(Level.INFO).contains("The change stream on robots is open again"));
        proven.fail(notWritablePrimary());

        await().until(() -> source.attempts.size() == 5 && watcher.status() == Status.WATCHING);
        assertEquals(ms(500, 1000, 2000, 500), sleeps);
        assertEquals(2, count(Level.WARN), "one warning per outage: " + logged);
    }

    @Test
    void aStreamThatFailsSoonAfterOpeningKeepsTheBackoffGrowing() {
        source.openTo(new Fed().fail(notWritablePrimary())).openTo(new Fed().fail(notWritablePrimary()));
        watcher = started(SLOT_0);

        await().until(() -> source.attempts.size() == 3 && watcher.status() == Status.WATCHING);
        assertEquals(ms(500, 1000), sleeps);
        assertEquals(1, count(Level.WARN));
    }

    @Test
    void closeEndsTheThreadAndClosesTheStream() {
        watcher = started(SLOT_0);
        await().until(() -> watcher.status() == Status.WATCHING);

        watcher.close();

        assertFalse(watcher.running());
        assertEquals(Status.CLOSED, watcher.status());
        assertTrue(source.attempt(0).stream().closed);
    }

    @Test
    void closeInterruptsAWaitBeforeARetry() {
        CountDownLatch never = new CountDownLatch(1);
        source.failOpen(notWritablePrimary());
        watcher = new RobotChangeWatcher(
                source, Duration.ofSeconds(1), wakes::incrementAndGet, nanos::get, d -> never.await());
        watcher.slots(SLOT_0);
        watcher.start();
        await().until(() -> watcher.status() == Status.RETRYING);

        watcher.close();

        assertFalse(watcher.running());
        assertEquals(1, source.attempts.size());
    }

    private RobotChangeWatcher started(Set<String> slots) {
        RobotChangeWatcher w =
                new RobotChangeWatcher(source, Duration.ofSeconds(1), wakes::incrementAndGet, nanos::get, d -> {
                    sleeps.add(d);
                    nanos.addAndGet(d.toNanos());
                });
        w.slots(slots);
        return w.start();
    }

    private static MongoCommandException notWritablePrimary() {
        return commandError(10107, "not primary");
    }

    private static MongoCommandException commandError(int code, String message) {
        return new MongoCommandException(
                new BsonDocument("ok", new BsonInt32(0))
                        .append("code", new BsonInt32(code))
                        .append("errmsg", new BsonString(message)),
                new ServerAddress());
    }

    private static List<Duration> ms(long... millis) {
        return java.util.Arrays.stream(millis).mapToObj(Duration::ofMillis).toList();
    }

    private long count(Level level) {
        return logged.stream().filter(e -> e.getLevel() == level).count();
    }

    private List<String> messages(Level level) {
        return logged.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private static Logger logger() {
        return (Logger) LoggerFactory.getLogger(RobotChangeWatcher.class);
    }
}
