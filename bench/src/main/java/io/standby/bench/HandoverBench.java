package io.standby.bench;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.NodeId;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotView;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.concurrent.Callable;
import org.bson.Document;
import org.bson.conversions.Bson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Graceful handover: one slot with counter robots, two node processes; SIGTERM the owner (or drain it) and measure the
 * gap from its last robot stop to the standby's first robot start, from the robots' events, and from the signal or
 * request to the standby's claim.
 */
@Command(
        name = "handover",
        mixinStandardHelpOptions = true,
        description = {
            "Graceful handover (SIGTERM, or a drain): one slot with counter robots, two node processes. Each",
            "round SIGTERMs the owner (--how drain: asks it to drain, as 'standby node drain' does, and waits for it",
            "to exit); the stopped node restarts as the next round's standby. Reports the gap from the old owner's",
            "last robot stop to the new owner's first robot start (and to its last), p50, p99, max, from the robots'",
            "events (stamped by the database as each node's event writer writes them), and from the SIGTERM or",
            "request to the new owner's claim (stamped by the database)."
        })
final class HandoverBench implements Callable<Integer> {

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(names = "--rounds", defaultValue = "30", description = "Handovers per profile (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--robots",
            defaultValue = "10",
            description = "Counter robots on the slot (default: ${DEFAULT-VALUE}).")
    int robots;

    @Option(
            names = "--profiles",
            split = ",",
            defaultValue = "defaults,fast",
            description = "defaults (heartbeat 2s, lease 5s, poll 1s) and/or fast (200ms, 600ms, 100ms) (default: "
                    + "${DEFAULT-VALUE}).")
    List<String> profiles;

    @Option(names = "--seed", defaultValue = "1", description = "Seeds the stop times (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--how", defaultValue = "sigterm", description = "sigterm, or drain (default: ${DEFAULT-VALUE}).")
    String how;

    record Result(Profile profile, Stats first, Stats all, Stats exit, Stats claimed) {}

    private boolean drain() {
        return how.equals("drain");
    }

    /**
     * SIGTERM: p99 of last stop to first start within a poll and 100 ms. Drain: p99 of request to the claim within
     * three polls (3 s at the defaults): a poll for the owner to see the request, a poll for the standby to see the
     * release, and the robots' stop between.
     */
    private long target(Result r) {
        return drain()
                ? r.profile.timing().poll().toMillis() * 3
                : r.profile.timing().poll().toMillis() + 100;
    }

    @Override
    public Integer call() {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds " + rounds + " must be at least 1");
        }
        if (robots < 1) {
            throw new IllegalArgumentException("--robots " + robots + " must be at least 1");
        }
        if (!how.equals("sigterm") && !drain()) {
            throw new IllegalArgumentException("--how " + how + " must be sigterm or drain");
        }
        List<Profile> chosen = Profile.parse(profiles, List.of("on"));
        Random random = new Random(seed);
        List<Result> results = Profile.runEach(
                "handover",
                String.format(
                        "graceful handover by %s: %d rounds per profile, %d counter robots," + " seed %d",
                        how, rounds, robots, seed),
                mongo,
                chosen,
                (logs, db, dbName, profile) -> run(logs, db, dbName, profile, random));
        String cause = drain() ? "drain request" : "SIGTERM";
        System.out.println(
                "| profile | handovers | last stop to first start: p50 / p99 / max | to all started: p50 / p99 / max | "
                        + cause + " to exit: p50 / p99 / max | " + cause + " to claim elsewhere: p50 / p99 / max | "
                        + (drain() ? "target p99 to claim <= 3 polls" : "target p99 stop to start <= poll + 100 ms")
                        + " |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (Result r : results) {
            long measured = drain() ? r.claimed.p99() : r.first.p99();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %d / %d / %d ms | %d / %d / %d ms | %d / %d / %d ms | %d / %d / %d ms | %d ms: %s |%n",
                    r.profile.label(),
                    r.first.count(),
                    r.first.p50(),
                    r.first.p99(),
                    r.first.max(),
                    r.all.p50(),
                    r.all.p99(),
                    r.all.max(),
                    r.exit.p50(),
                    r.exit.p99(),
                    r.exit.max(),
                    r.claimed.p50(),
                    r.claimed.p99(),
                    r.claimed.max(),
                    target(r),
                    measured <= target(r) ? "met" : "not met");
        }
        return 0;
    }

    private Result run(Path logs, Database db, String dbName, Profile profile, Random random) {
        System.out.println("== " + profile.label());
        List<Long> first = new ArrayList<>();
        List<Long> all = new ArrayList<>();
        List<Long> exits = new ArrayList<>();
        List<Long> claims = new ArrayList<>();
        try (NodePair pair = new NodePair(logs, db, dbName, profile)) {
            RobotTable table = new RobotTable(pair.client());
            for (int i = 0; i < robots; i++) {
                table.add(
                        new RobotTable.NewRobot(
                                String.format("counter-%03d", i),
                                "counter",
                                "slot-0",
                                0,
                                1.0,
                                new Document("intervalMs", 100)),
                        OptionalDouble.empty());
            }
            pair.start();
            MongoCollection<Document> events = pair.client().database().getCollection("events");
            for (int round = 1; round <= rounds; round++) {
                pair.ownerPort();
                SlotView running = awaitAllStarted(pair, events);
                int owner = running.owner().port();
                long epoch = running.epoch();
                Bench.sleep(profile.timing().poll().multipliedBy(2));
                Bench.sleep(Duration.ofMillis((long)
                        (random.nextDouble() * profile.timing().heartbeat().toMillis())));
                // The database runs on this machine: its clock, which stamps the claim, is this one.
                Instant asked = Instant.now();
                long term = System.nanoTime();
                int code;
                if (drain()) {
                    new NodeTable(pair.client()).drain(new NodeId("127.0.0.1", owner));
                    code = pair.node(owner).awaitExit(Duration.ofSeconds(60));
                } else {
                    code = pair.node(owner).terminate(Duration.ofSeconds(60));
                }
                long exit = (System.nanoTime() - term) / 1_000_000;
                if (code != 0 && (code != 143 || drain())) {
                    throw new IllegalStateException("node " + owner + " exited " + code + " after " + how + " (log: "
                            + pair.node(owner).log() + ")");
                }
                SlotWatch.Change change = pair.watch().awaitChangeAfter(epoch, Duration.ofSeconds(60));
                long claimed = Duration.between(asked, change.claimed()).toMillis();
                int taker = change.after().owner().port();
                List<Document> stops = awaitEvents(
                        events,
                        Filters.and(
                                Filters.eq("type", "robot-released"),
                                Filters.eq("epoch", epoch),
                                Filters.eq("node", "127.0.0.1:" + owner)),
                        robots);
                List<Document> starts =
                        awaitEvents(events, started(change.after().epoch(), taker), robots);
                long lastStop =
                        stops.stream().mapToLong(HandoverBench::time).max().orElseThrow();
                long firstStart =
                        starts.stream().mapToLong(HandoverBench::time).min().orElseThrow();
                long lastStart =
                        starts.stream().mapToLong(HandoverBench::time).max().orElseThrow();
                first.add(firstStart - lastStop);
                all.add(lastStart - lastStop);
                exits.add(exit);
                claims.add(claimed);
                System.out.printf(
                        Locale.ROOT,
                        "round %d: %s to %d (exit after %d ms, claimed elsewhere after %d ms); %d robots started on "
                                + "%d %d ms after the last stop (all %d ms)%n",
                        round,
                        drain() ? "drain request" : "SIGTERM",
                        owner,
                        exit,
                        claimed,
                        robots,
                        taker,
                        firstStart - lastStop,
                        lastStart - lastStop);
                if (round < rounds) {
                    // The next round's standby; after the last round nobody would use it.
                    pair.start(owner);
                    pair.awaitStandbyReady();
                }
            }
        }
        return new Result(profile, Stats.of(first), Stats.of(all), Stats.of(exits), Stats.of(claims));
    }

    /**
     * The slot once every robot started under its current owner and epoch. Read again at each look: on a loaded machine
     * a fast profile's owner may lose its first lease before its robots start and take the slot back at the next epoch,
     * where they do start.
     */
    private SlotView awaitAllStarted(NodePair pair, MongoCollection<Document> events) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            SlotView slot = pair.watch().last();
            if (slot.owner() != null
                    && events.countDocuments(started(slot.epoch(), slot.owner().port())) >= robots) {
                return slot;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "bench handover: " + robots + " robots never all started under one owner and epoch"
                                + " within 60 s (last: " + slot.owner() + " at epoch " + slot.epoch() + ")");
            }
            Bench.sleep(Duration.ofMillis(50));
        }
    }

    private static Bson started(long epoch, int port) {
        return Filters.and(
                Filters.eq("type", "robot-started"),
                Filters.eq("epoch", epoch),
                Filters.eq("node", "127.0.0.1:" + port));
    }

    private static List<Document> awaitEvents(MongoCollection<Document> events, Bson filter, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            List<Document> found = events.find(filter).into(new ArrayList<>());
            if (found.size() >= count) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "only " + found.size() + " of " + count + " events " + filter + " within 60 s");
            }
            Bench.sleep(Duration.ofMillis(20));
        }
    }

    private static long time(Document event) {
        return event.get("time", Date.class).getTime();
    }
}
