package io.standby.bench;

import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * Takeover after kill -9: one slot, two node processes; SIGKILL the owner at a random point of its
 * heartbeat cycle and time the standby's claim, by the time the database stamped on it.
 */
@Command(name = "takeover", mixinStandardHelpOptions = true,
        description = {"Takeover after kill -9: one slot, two node processes. Each round SIGKILLs the owner at a random",
                "point of its heartbeat cycle; the killed node restarts as the next round's standby. Reports, per",
                "profile, kill-to-claim and the claim's overhead past the lease (p50, p99, max), from the times the",
                "database wrote."})
final class TakeoverBench implements Callable<Integer> {

    @Option(names = "--rounds", defaultValue = "30", description = "Kills per profile (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--profiles", split = ",", defaultValue = "defaults,fast",
            description = "defaults (heartbeat 2s, lease 5s, poll 1s), fast (200ms, 600ms, 100ms) and/or long (3s, 20s, 1s) "
                    + "(default: ${DEFAULT-VALUE}).")
    List<String> profiles;

    @Option(names = "--fast-failover", split = ",", defaultValue = "on,off",
            description = "on and/or off (default: ${DEFAULT-VALUE}).")
    List<String> failover;

    @Option(names = "--watch-lease", converter = DurationOption.class, paramLabel = "DURATION",
            description = "Nodes keep watch links with this watch lease (default: none).")
    Duration watchLease;

    @Option(names = "--seed", defaultValue = "1", description = "Seeds the kill times (default: ${DEFAULT-VALUE}).")
    long seed;

    /** One profile's rounds. */
    record Result(Profile profile, Stats takeover, Stats pastLease, int ownerGone) {

        long target() {
            return profile.timing().lease().plus(profile.timing().poll()).toMillis() + 200;
        }
    }

    @Override
    public Integer call() {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds " + rounds + " must be at least 1");
        }
        List<Profile> chosen = Profile.parse(profiles, failover).stream().map(p -> p.withWatchLease(watchLease)).toList();
        Random random = new Random(seed);
        List<Result> results = Profile.runEach("takeover", String.format("takeover after kill -9: %d rounds per profile, seed %d",
                rounds, seed), chosen, (logs, db, dbName, profile) -> run(logs, db, dbName, profile, random));
        System.out.println("| profile | kills | kill to claim: p50 / p99 / max | past the lease: p50 / p99 / max | by owner-gone | target p99 <= lease + poll + 200 ms |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "| %s | %d | %d / %d / %d ms | %d / %d / %d ms | %d | %d ms: %s |%n", r.profile.label(),
                    r.takeover.count(), r.takeover.p50(), r.takeover.p99(), r.takeover.max(),
                    r.pastLease.p50(), r.pastLease.p99(), r.pastLease.max(), r.ownerGone,
                    r.target(), r.takeover.p99() <= r.target() ? "met" : "not met");
        }
        return 0;
    }

    private Result run(Path logs, Database db, String dbName, Profile profile, Random random) {
        System.out.println("== " + profile.label());
        List<Long> takeovers = new ArrayList<>();
        List<Long> pastLease = new ArrayList<>();
        int ownerGone = 0;
        Duration heartbeat = profile.timing().heartbeat();
        try (NodePair pair = new NodePair(logs, db, dbName, profile)) {
            pair.start();
            for (int round = 1; round <= rounds; round++) {
                int owner = pair.ownerPort();
                // Steady heartbeats and a standby that has watched the slot for a while, then the kill at a
                // random point of the owner's heartbeat cycle, as a crash would come.
                Bench.sleep(profile.timing().poll().multipliedBy(2).plus(heartbeat));
                Bench.sleep(Duration.ofMillis((long) (random.nextDouble() * heartbeat.toMillis())));
                long epoch = pair.watch().last().epoch();
                Instant killed = Instant.now();
                pair.node(owner).kill9();
                SlotWatch.Change change = pair.watch().awaitChangeAfter(epoch, profile.timing().lease().multipliedBy(3).plusSeconds(30));
                long took = Duration.between(killed, change.claimed()).toMillis();
                long late = change.unowned().minus(profile.timing().lease()).toMillis();
                String how = how(pair, change.after().epoch());
                if ("owner-gone".equals(how)) {
                    ownerGone++;
                }
                takeovers.add(took);
                pastLease.add(late);
                System.out.printf(Locale.ROOT, "round %d: kill -9 of %d, claimed by %s %d ms later (%s), %d ms past the lease%n",
                        round, owner, change.after().owner(), took, how, late);
                pair.start(owner);
                pair.awaitStandbyReady();
            }
        }
        return new Result(profile, Stats.of(takeovers), Stats.of(pastLease), ownerGone);
    }

    /** How the claim came about, from its took-over event (written shortly after the claim). */
    private static String how(NodePair pair, long epoch) {
        Document filter = new Document("type", "took-over").append("slot", "slot-0").append("epoch", epoch);
        for (int i = 0; i < 100; i++) {
            Document event = pair.client().database().getCollection("events").find(filter).first();
            if (event != null) {
                return event.getString("how");
            }
            Bench.sleep(Duration.ofMillis(20));
        }
        return "no event";
    }
}
