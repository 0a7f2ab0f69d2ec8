package io.standby.bench;

import io.standby.slot.SlotTiming;
import io.standby.slot.WatchLinks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Node timing under test: {@code defaults} (what {@code standby node} uses unless told) or {@code fast}
 * ({@code --heartbeat 200ms --lease 600ms --poll 100ms}) or {@code long} ({@code --heartbeat 3s --lease 20s --poll
 * 1s}), with fast failover on or off, and with watch links as {@code standby node} has them unless told
 * ({@code watchLinks} and no {@code watchLease}: a watch lease of min(1 s, heartbeat), none below a 500 ms heartbeat),
 * at a given watch lease, or off ({@code --no-watch-links}).
 */
record Profile(String name, SlotTiming timing, boolean fastFailover, boolean watchLinks, Duration watchLease) {

    static final SlotTiming FAST =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(600), Duration.ofMillis(100));
    /** A lease that outlasts a database election (so no slot moves in one): issue 25's target 5. */
    static final SlotTiming LONG = SlotTiming.of(Duration.ofSeconds(3), Duration.ofSeconds(20), Duration.ofSeconds(1));

    /** With fast failover, and watch links as {@code standby node} has them unless told. */
    static Profile withFastFailover(String name, SlotTiming timing) {
        return new Profile(name, timing, true, true, null);
    }

    /**
     * Every combination of {@code names} (defaults, fast, long) and {@code failover} (on, off), links as by default.
     */
    static List<Profile> parse(List<String> names, List<String> failover) {
        return parse(names, failover, List.of("on"), null);
    }

    /**
     * Every combination of {@code names} (defaults, fast, long), {@code failover} (on, off) and {@code links} (on,
     * off); links that are on have {@code watchLease}, or the node's default when it is null.
     */
    static List<Profile> parse(List<String> names, List<String> failover, List<String> links, Duration watchLease) {
        List<Profile> profiles = new ArrayList<>();
        for (String name : names) {
            SlotTiming timing = switch (name) {
                case "defaults" -> SlotTiming.defaults();
                case "fast" -> FAST;
                case "long" -> LONG;
                default ->
                    throw new IllegalArgumentException("unknown profile '" + name + "': use defaults, fast or long");
            };
            for (String on : failover) {
                boolean fast = onOff("--fast-failover", on);
                for (String link : links) {
                    boolean linked = onOff("--watch-links", link);
                    profiles.add(new Profile(name, timing, fast, linked, linked ? watchLease : null));
                }
            }
        }
        return profiles;
    }

    private static boolean onOff(String option, String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("unknown " + option + " '" + value + "': use on or off");
        };
    }

    /** The watch lease the nodes run with, or null when they keep no watch links. */
    Duration effectiveWatchLease() {
        if (!watchLinks) {
            return null;
        }
        if (watchLease != null) {
            return watchLease;
        }
        WatchLinks links = WatchLinks.defaultFor(timing);
        return links == null ? null : links.lease();
    }

    /** One profile's rounds, on a database of its own ({@code dbName}) of the run's server. */
    interface Rounds<R> {
        R run(Path logs, Database db, String dbName, Profile profile);
    }

    /**
     * Runs {@code rounds} for each profile on one embedded database (or {@code --mongo}'s server), between the run's
     * header (with the log directory) and the machine's state at its start and end; returns the results in order.
     */
    static <R> List<R> runEach(
            String tool, String header, MongoOption mongo, List<Profile> profiles, Rounds<R> rounds) {
        Path logs = Bench.runDirectory(tool);
        System.out.println(header + ", logs in " + logs);
        System.out.println("machine at start: " + Machine.describe());
        List<R> results = new ArrayList<>();
        try (Database db = mongo.open(logs)) {
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
        List<String> args = new ArrayList<>(List.of(
                "--heartbeat", ms(timing.heartbeat()), "--lease", ms(timing.lease()), "--poll", ms(timing.poll())));
        args.add(fastFailover ? "--fast-failover" : "--no-fast-failover");
        if (!watchLinks) {
            args.add("--no-watch-links");
        } else if (watchLease != null) {
            args.addAll(List.of("--watch-lease", ms(watchLease)));
        }
        return args;
    }

    String label() {
        Duration links = effectiveWatchLease();
        String linkPart;
        if (!watchLinks) {
            linkPart = "no watch links";
        } else if (watchLease != null) {
            linkPart = "watch lease " + ms(watchLease);
        } else if (links != null) {
            linkPart = "watch links by default (watch lease " + ms(links) + ")";
        } else {
            linkPart = "no watch links (the default below a " + ms(WatchLinks.MIN_DEFAULT_HEARTBEAT) + " heartbeat)";
        }
        return String.format(
                Locale.ROOT,
                "%s (heartbeat %s, lease %s, poll %s), fast failover %s, %s",
                name,
                ms(timing.heartbeat()),
                ms(timing.lease()),
                ms(timing.poll()),
                fastFailover ? "on" : "off",
                linkPart);
    }

    private static String ms(Duration d) {
        return d.toMillis() + "ms";
    }
}
