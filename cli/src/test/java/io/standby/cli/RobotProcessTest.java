package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.standby.slot.SlotTable;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestMongo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code counter} robot on nodes that are real processes, failed the way machines fail. The facts come from the robot
 * document, read every 50 ms with a projection: its {@code count} is the robot's checkpointed progress, so no owner
 * change may ever make it go back.
 */
class RobotProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Duration SAMPLE_EVERY = Duration.ofMillis(50);
    private static final Pattern COUNTING_FROM = Pattern.compile("Counting from (\\d+) at epoch (\\d+)");

    /** Kept when a test fails: the nodes' own logs are the first thing to read. */
    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    private final List<Sample> samples = new ArrayList<>();
    private long startedAt;

    /** One read of the robot document; {@code count} and {@code contextEpoch} are -1 before the first checkpoint. */
    record Sample(long atMs, long count, long contextEpoch, String node, String state, long epoch) {
        Sample withoutTime() {
            return new Sample(0, count, contextEpoch, node, state, epoch);
        }
    }

    @BeforeEach
    void setUp() {
        startedAt = System.nanoTime();
        nodes.onFailure(() -> {
            System.out.println("----- samples where something other than the time changed");
            Sample shown = null;
            for (Sample s : samples) {
                if (shown == null || !s.withoutTime().equals(shown.withoutTime())) {
                    System.out.println(s);
                    shown = s;
                }
            }
        });
    }

    private ChildJvm node(int port) throws Exception {
        return nodes.node(port, "--heartbeat", "300ms", "--lease", "2s", "--poll", "300ms");
    }

    private Sample sample() {
        // A projection makes the embedded server copy the document: no torn read of a concurrent update.
        Document doc = nodes.admin()
                .database()
                .getCollection("robots")
                .find(Filters.eq("_id", "c1"))
                .projection(Projections.include("context", "node", "state", "epoch"))
                .first();
        if (doc == null) {
            throw new AssertionError("robot c1 is gone");
        }
        Document context = doc.get("context", new Document());
        Sample sample = new Sample(
                (System.nanoTime() - startedAt) / 1_000_000,
                context.get("count") instanceof Number n ? n.longValue() : -1,
                context.get("epoch") instanceof Number n ? n.longValue() : -1,
                doc.getString("node"),
                doc.getString("state"),
                doc.get("epoch") instanceof Number n ? n.longValue() : -1);
        samples.add(sample);
        return sample;
    }

    /** Samples every 50 ms until {@code done}, and returns the sample that satisfied it. */
    private Sample sampleUntil(String what, Predicate<Sample> done) {
        // Awaitility's message on timeout names what was awaited and the last sample.
        return await(what)
                .pollDelay(Duration.ZERO)
                .pollInterval(SAMPLE_EVERY)
                .atMost(WAIT)
                .until(this::sample, done);
    }

    private long highestCount() {
        return samples.stream().mapToLong(Sample::count).max().orElse(-1);
    }

    /** The count each run of the robot on this node started from, as the counter logged it. */
    private static List<Long> countedFrom(ChildJvm node) {
        List<Long> from = new ArrayList<>();
        Matcher m = COUNTING_FROM.matcher(node.output());
        while (m.find()) {
            from.add(Long.parseLong(m.group(1)));
        }
        return from;
    }

    @Test
    void aCounterContinuesFromItsLastCheckpointAfterKill9AndKeepsItsCountThroughSigterm() throws Exception {
        List<Integer> ports = counterOnTwoNodes(100);

        // 1. One node runs it and checkpoints.
        Sample running =
                sampleUntil("c1 counts to 5", s -> s.count() >= 5 && s.node() != null && "RUNNING".equals(s.state()));
        int owner = Integer.parseInt(running.node().substring(running.node().lastIndexOf(':') + 1));
        int standby = owner == ports.get(0) ? ports.get(1) : ports.get(0);
        nodes.get(standby).awaitOutput("started", WAIT);
        await().atMost(WAIT).until(() -> Map.of("slot-0", List.of("c1")).equals(robotsOn(owner)));

        // 2. kill -9 the owner: the standby takes the slot over and the count goes on from the last checkpoint.
        nodes.get(owner).kill9();
        int killedAt = samples.size();
        long highestBeforeKill = highestCount();
        Sample resumed = sampleUntil(
                "the standby counts on",
                s -> ("127.0.0.1:" + standby).equals(s.node())
                        && s.contextEpoch() > running.contextEpoch()
                        && s.count() >= highestBeforeKill + 5);

        assertNeverWentBack();
        for (Sample s : samples.subList(killedAt, samples.size())) {
            assertTrue(s.count() >= highestBeforeKill, s + " is below " + highestBeforeKill + ", seen before the kill");
        }
        long slotEpoch =
                new SlotTable(nodes.admin()).get("slot-0").orElseThrow().epoch();
        assertTrue(slotEpoch > running.contextEpoch(), "the takeover raised the slot's epoch");
        assertEquals(slotEpoch, resumed.contextEpoch(), "the standby checkpoints under its own epoch");
        assertEquals(slotEpoch, resumed.epoch(), "the robot is fenced at the standby's epoch");
        List<Long> standbyFrom = countedFrom(nodes.get(standby));
        assertEquals(1, standbyFrom.size(), nodes.get(standby).output());
        assertTrue(
                standbyFrom.getFirst() >= highestBeforeKill,
                "the standby started from " + standbyFrom.getFirst() + ", not from the last checkpoint (>= "
                        + highestBeforeKill + ")");

        // 3. SIGTERM the standby, now the owner: the robot stops first, its final write marks it PENDING with no node.
        long highestBeforeTerm = highestCount();
        assertEquals(0, nodes.get(standby).terminate(WAIT), "a node that handed its slot over on SIGTERM exits 0");
        Sample stopped = sample();
        assertEquals("PENDING", stopped.state(), "the final write: " + stopped);
        assertNull(stopped.node(), "the final write: " + stopped);
        assertTrue(
                stopped.count() >= highestBeforeTerm,
                stopped + " lost checkpoints (>= " + highestBeforeTerm + " seen)");
        assertEquals(slotEpoch, stopped.contextEpoch());
        String log = nodes.get(standby).output();
        int releasing = log.indexOf("Releasing slot-0");
        assertTrue(releasing >= 0 && releasing < log.indexOf("Released slot-0"), log);

        // 4. The count it checkpointed is exactly where the next node starts.
        int restarted = owner;
        node(restarted);
        sampleUntil(
                "a new node counts on",
                s -> ("127.0.0.1:" + restarted).equals(s.node()) && s.count() >= stopped.count() + 3);
        assertEquals(List.of(stopped.count()), countedFrom(nodes.get(restarted)));
        assertNeverWentBack();
    }

    @Test
    void aPausedOwnerThatWakesAfterTheTakeoverStopsItsRobotAndNeverWritesAgain() throws Exception {
        List<Integer> ports = counterOnTwoNodes(50);
        Sample running = sampleUntil("c1 counts to 10", s -> s.count() >= 10 && s.node() != null);
        int owner = Integer.parseInt(running.node().substring(running.node().lastIndexOf(':') + 1));
        int standby = owner == ports.get(0) ? ports.get(1) : ports.get(0);

        // SIGSTOP: a process pause (GC, VM migration) longer than the lease. It cannot stop its robot itself.
        // Its runs so far: more than one if a slow renewal on a loaded machine paused and resumed it.
        int runsBeforeStop = countedFrom(nodes.get(owner)).size();
        nodes.get(owner).signal("STOP");
        long highestBeforePause = highestCount();
        Sample taken = sampleUntil(
                "the standby counts on",
                s -> ("127.0.0.1:" + standby).equals(s.node())
                        && s.contextEpoch() > running.contextEpoch()
                        && s.count() >= highestBeforePause + 5);

        // It wakes with its robot mid-loop and a checkpoint possibly due: the lease check and the fence stop it.
        nodes.get(owner).signal("CONT");
        int wokeAt = samples.size();
        nodes.get(owner).awaitOutput("Lost slot-0", WAIT);
        await().atMost(WAIT).until(() -> robotsOn(owner).isEmpty());
        // Room for a late write of the woken node, measured in the new owner's progress rather than a fixed
        // sleep: the samples go on while it counts on by 60 more (about 3 s at its 50 ms interval).
        long atWake = sample().count();
        sampleUntil("the new owner counts on after the wake-up", s -> s.count() >= atWake + 60);

        assertNeverWentBack();
        for (Sample s : samples.subList(wokeAt, samples.size())) {
            assertEquals(
                    taken.contextEpoch(), s.contextEpoch(), "only the new owner checkpoints after the wake-up: " + s);
            assertEquals("127.0.0.1:" + standby, s.node(), s.toString());
        }
        assertEquals(Map.of("slot-0", List.of("c1")), robotsOn(standby));
        assertEquals(
                runsBeforeStop, countedFrom(nodes.get(owner)).size(), "the woken node did not start the robot again");
    }

    @Test
    void aForcedReleaseRejectsTheOwnersCheckpointsBeforeTheCommandReturns() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        CliRun added = CliRun.of(
                "robot",
                "add",
                "c1",
                "--type",
                "counter",
                "--config",
                "intervalMs=20",
                "--mongo",
                TestMongo.uri(),
                "--db",
                nodes.db());
        assertEquals(0, added.exitCode(), added.err());
        node(StandbyProcess.freePorts(1).getFirst());
        Sample running = sampleUntil("c1 counts to 20", s -> s.count() >= 20 && "RUNNING".equals(s.state()));

        CliRun released = CliRun.of("slots", "release", "slot-0", "--mongo", TestMongo.uri(), "--db", nodes.db());
        assertEquals(0, released.exitCode(), released.err());
        // From here on no checkpoint of the old owner (at the old epoch) may land: the count it left stays.
        Sample after = sample();
        assertEquals(running.contextEpoch(), after.contextEpoch(), "nobody else could have written yet");
        Sample next = sampleUntil(
                "the slot is owned again and c1 counts on",
                s -> s.contextEpoch() > running.contextEpoch() && s.count() >= after.count() + 3);
        for (Sample s : samples.subList(samples.indexOf(after), samples.size())) {
            if (s.contextEpoch() == running.contextEpoch()) {
                assertEquals(
                        after.count(), s.count(), "a checkpoint of the released owner landed after the release: " + s);
            }
        }
        assertTrue(next.epoch() >= running.epoch() + 2, "released (+1), then claimed again (+1): " + next);
        assertNeverWentBack();
    }

    /** One slot, a counter {@code c1} checkpointing every {@code intervalMs}, two nodes; returns their ports. */
    private List<Integer> counterOnTwoNodes(int intervalMs) throws Exception {
        new SlotTable(nodes.admin()).init(1);
        CliRun added = CliRun.of(
                "robot",
                "add",
                "c1",
                "--type",
                "counter",
                "--config",
                "intervalMs=" + intervalMs,
                "--mongo",
                TestMongo.uri(),
                "--db",
                nodes.db());
        assertEquals(0, added.exitCode(), added.err());
        List<Integer> ports = StandbyProcess.freePorts(2);
        for (int port : ports) {
            node(port);
        }
        return ports;
    }

    /** Across every sample: the count never went below the highest count seen before it. */
    private void assertNeverWentBack() {
        long highest = -1;
        for (Sample s : samples) {
            assertTrue(s.count() >= highest, s + " went back below " + highest);
            highest = Math.max(highest, s.count());
        }
    }

    /** The robots a node reports running on its /health endpoint, by slot. */
    private static Map<String, Object> robotsOn(int port) throws Exception {
        return Document.parse(health(port)).get("robots", Document.class);
    }

    private static String health(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }
}
