package io.standby.bench;

import io.standby.slot.SlotTiming;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Node timing under test: {@code defaults} (what {@code standby node} uses unless told) or {@code fast}
 * ({@code --heartbeat 200ms --lease 600ms --poll 100ms}) or {@code long} ({@code --heartbeat 3s --lease 20s
 * --poll 1s}), with fast failover on or off, and with or without watch links.
 */
record Profile(String name, SlotTiming timing, boolean fastFailover, Duration watchLease) {

    static final SlotTiming FAST = SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(600), Duration.ofMillis(100));
    /** A lease that rides through a database election: issue 25's target 5. */
    static final SlotTiming LONG = SlotTiming.of(Duration.ofSeconds(3), Duration.ofSeconds(20), Duration.ofSeconds(1));

    /** Without watch links. */
    Profile(String name, SlotTiming timing, boolean fastFailover) {
        this(name, timing, fastFailover, null);
    }

    /** The same profile with watch links of {@code watchLease} (null: none). */
    Profile withWatchLease(Duration watchLease) {
        return new Profile(name, timing, fastFailover, watchLease);
    }

    /** Every combination of {@code names} (defaults, fast) and {@code failover} (on, off). */
    static List<Profile> parse(List<String> names, List<String> failover) {
        List<Profile> profiles = new ArrayList<>();
        for (String name : names) {
            SlotTiming timing = switch (name) {
                case "defaults" -> SlotTiming.defaults();
                case "fast" -> FAST;
                case "long" -> LONG;
                default -> throw new IllegalArgumentException("unknown profile '" + name + "': use defaults, fast or long");
            };
            for (String on : failover) {
                boolean fast = switch (on) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("unknown --fast-failover '" + on + "': use on or off");
                };
                profiles.add(new Profile(name, timing, fast));
            }
        }
        return profiles;
    }

    /** One profile's rounds, on a database of its own ({@code dbName}) of the run's server. */
    interface Rounds<R> {
        R run(Path logs, Database db, String dbName, Profile profile);
    }

    /**
     * Runs {@code rounds} for each profile on one embedded database, between the run's header (with the
     * log directory) and the machine's state at its start and end; returns the results in order.
     */
    static <R> List<R> runEach(String tool, String header, List<Profile> profiles, Rounds<R> rounds) {
        Path logs = Bench.runDirectory(tool);
        System.out.println(header + ", logs in " + logs);
        System.out.println("machine at start: " + Machine.describe());
        List<R> results = new ArrayList<>();
        try (Database db = Database.inMemory(logs)) {
            int n = 0;
            for (Profile profile : profiles) {
                results.add(rounds.run(logs, db, tool + (++n), profile));
            }
        }
        System.out.println("machine at end: " + Machine.describe());
        System.out.println();
        return results;
    }

    /** The node's command-line options for this profile. */
    List<String> nodeArgs() {
        List<String> args = new ArrayList<>(List.of("--heartbeat", ms(timing.heartbeat()), "--lease", ms(timing.lease()),
                "--poll", ms(timing.poll())));
        args.add(fastFailover ? "--fast-failover" : "--no-fast-failover");
        if (watchLease != null) {
            args.addAll(List.of("--watch-lease", ms(watchLease)));
        }
        return args;
    }

    String label() {
        return String.format(Locale.ROOT, "%s (heartbeat %s, lease %s, poll %s), fast failover %s%s", name,
                ms(timing.heartbeat()), ms(timing.lease()), ms(timing.poll()), fastFailover ? "on" : "off",
                watchLease == null ? "" : ", watch lease " + ms(watchLease));
    }

    private static String ms(Duration d) {
        return d.toMillis() + "ms";
    }
}
