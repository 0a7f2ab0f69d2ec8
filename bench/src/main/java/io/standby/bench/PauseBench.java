package io.standby.bench;

import com.mongodb.client.model.Projections;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToLongFunction;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Pause at the late mark: one slot with counter robots, its owner reaching the database through a proxy, a standby
 * reaching it directly. Each round freezes the owner's link for longer than the late mark but within the lease, and
 * times from the owner's /health how soon its robots stop and how soon they run again once the link is back; from the
 * database, that the slot kept its owner and epoch and that no robot's count went back. With {@code --watch-links} the
 * standby's link covers the owner, which then writes no late mark: the same freeze, as of a database election, must
 * pause nothing.
 */
@Command(
        name = "pause",
        mixinStandardHelpOptions = true,
        description = {
            "Pause at the late mark: one slot with counter robots, an owner node whose link to the database goes",
            "through a proxy, and a standby on the database directly. Each round waits until every robot runs, then",
            "freezes the owner's link (TcpProxy.pause) 50 ms after the database stamped one of its renewals, for",
            "longer than the late mark (2 heartbeats) but within the lease, and polls the owner's /health every",
            "20 ms. Reports, per profile, the freeze (and the last renewal's stamp) to the robots gone, and the link's",
            "return to the renewal stamped and to every robot running again (p50, max); checks from the database",
            "that the slot kept its owner and epoch and that no robot's count went back. Exits 1 if the slot moved,",
            "its epoch changed, a count went back, or the robots did not pause and run again (with --watch-links:",
            "if they paused at all)."
        })
final class PauseBench implements Callable<Integer> {

    /** How often /health (and the database) is read during a round. */
    private static final Duration EVERY = Duration.ofMillis(20);
    /** The freeze begins this long after a renewal was stamped: its answer has reached the node by then. */
    private static final Duration AFTER_RENEWAL = Duration.ofMillis(50);

    private static final String SLOT = "slot-0";

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(names = "--rounds", defaultValue = "10", description = "Freezes per profile (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--robots",
            defaultValue = "5",
            description = "Counter robots on the slot (default: ${DEFAULT-VALUE}).")
    int robots;

    @Option(
            names = "--profiles",
            split = ",",
            defaultValue = "defaults,fast",
            description = {
                "defaults (heartbeat 2s, lease 5s, poll 1s; freeze 4s), fast (200ms, 1s, 100ms; freeze 600ms)",
                "and/or long-lease (1s, 8s, 1s; freeze 3s) (default: ${DEFAULT-VALUE})."
            })
    List<String> profiles;

    @Option(
            names = "--freeze",
            converter = DurationOption.class,
            description = "How long each freeze lasts, for every profile (default: the profile's, above).")
    Duration freeze;

    @Option(
            names = "--standby",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Run a standby node too, which must not take the slot (default: ${DEFAULT-VALUE}).")
    boolean standby;

    @Option(
            names = "--watch-links",
            negatable = true,
            defaultValue = "false",
            fallbackValue = "true",
            description = {
                "Nodes keep watch links (a 1 s watch lease, or the heartbeat if shorter), so the standby's link covers",
                "the owner: it writes no late mark, and must ride through every freeze with its robots running, as",
                "through a database election. Needs --standby and a heartbeat of 500ms or more (default: off: the",
                "late-mark pause of an owner that no link covers)."
            })
    boolean watchLinks;

    /** A profile and how long its freezes last. */
    record Setting(Profile profile, Duration freeze) {

        SlotTiming timing() {
            return profile.timing();
        }

        /** When the owner pauses: late − late/10 after the send of its last acknowledged renewal. */
        Duration pauseDeadline() {
            return timing().late().minus(timing().lateMargin());
        }
    }

    /**
     * One freeze. Times in ms, -1 when it did not happen: how long the link was frozen; robots gone from /health after
     * the freeze and after the last renewal's stamp; the owner's "pausing its robots" line after that stamp; the
     * renewal stamped and every robot running again after the link came back.
     */
    record Round(
            int n,
            long frozenFor,
            long freezeToGone,
            long stampToGone,
            long stampToLogged,
            long backToRenewal,
            long backToRunning,
            boolean kept) {

        boolean paused() {
            return freezeToGone >= 0;
        }

        boolean resumed() {
            return backToRunning >= 0;
        }
    }

    /** One profile's rounds, what the owner logged, and every fact that failed. */
    record Result(
            Setting setting,
            List<Round> rounds,
            NodeId owner,
            long epoch,
            int loggedPauses,
            int loggedResumes,
            List<String> violations) {

        Stats stats(ToLongFunction<Round> measure) {
            return Stats.of(rounds.stream()
                    .mapToLong(measure)
                    .filter(ms -> ms >= 0)
                    .boxed()
                    .toList());
        }
    }

    /**
     * A profile by name, with watch links (the node's default) or without them, so that no link covers the owner and it
     * pauses at its late mark.
     */
    static Setting setting(String name, boolean watchLinks) {
        return switch (name) {
            case "defaults" -> new Setting(profile(name, SlotTiming.defaults(), watchLinks), Duration.ofSeconds(4));
            case "fast" ->
                new Setting(
                        profile(
                                name,
                                SlotTiming.of(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMillis(100)),
                                watchLinks),
                        Duration.ofMillis(600));
            case "long-lease" ->
                new Setting(
                        profile(
                                name,
                                SlotTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ofSeconds(1)),
                                watchLinks),
                        Duration.ofSeconds(3));
            default ->
                throw new IllegalArgumentException("unknown profile '" + name + "': use defaults, fast or long-lease");
        };
    }

    private static Profile profile(String name, SlotTiming timing, boolean watchLinks) {
        return new Profile(name, timing, true, watchLinks, null);
    }

    @Override
    public Integer call() {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds " + rounds + " must be at least 1");
        }
        if (robots < 1) {
            throw new IllegalArgumentException("--robots " + robots + " must be at least 1");
        }
        if (watchLinks && !standby) {
            throw new IllegalArgumentException("--watch-links needs --standby: a link covers an owner from a standby");
        }
        Map<String, Setting> chosen = new HashMap<>();
        List<Profile> order = new ArrayList<>();
        for (String name : profiles) {
            Setting s = setting(name, watchLinks);
            if (watchLinks && s.timing().heartbeat().compareTo(Duration.ofMillis(500)) < 0) {
                throw new IllegalArgumentException("--watch-links: profile " + name + " has a heartbeat of "
                        + s.timing().heartbeat().toMillis() + "ms, below which nodes keep no links");
            }
            if (freeze != null) {
                s = new Setting(s.profile(), freeze);
            }
            if (s.freeze().isZero() || s.freeze().compareTo(s.timing().lease()) >= 0) {
                throw new IllegalArgumentException(
                        "--freeze " + s.freeze().toMillis() + "ms must be more than 0 and less than the lease of "
                                + name + " (" + s.timing().lease().toMillis() + "ms)");
            }
            chosen.put(name, s);
            order.add(s.profile());
        }
        List<Result> results = Profile.runEach(
                "pause",
                String.format(
                        Locale.ROOT,
                        "%s: %d rounds per profile, %d counter robots, %s",
                        watchLinks
                                ? "ride through a frozen database link, the owner covered by a watch link"
                                : "pause at the late mark",
                        rounds,
                        robots,
                        standby ? "one standby" : "no standby"),
                mongo,
                order,
                (logs, db, dbName, profile) -> run(logs, db, dbName, chosen.get(profile.name())));
        System.out.println(
                "| profile | freeze | rounds | paused / ran again | slot and epoch kept | freeze to robots gone: "
                        + "p50 / max "
                        + "| last renewal stamped to pause logged: p50 / max | to robots gone: p50 / max | pause "
                        + "deadline after that renewal's send | link back to renewal stamped: p50 / max "
                        + "| link back to all running: p50 / max |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d ms | %d | %d / %d | %d | %s | %s | %s | %d ms | %s | %s |%n",
                    r.setting.profile().label(),
                    r.setting.freeze().toMillis(),
                    r.rounds.size(),
                    r.rounds.stream().filter(Round::paused).count(),
                    r.rounds.stream().filter(Round::resumed).count(),
                    r.rounds.stream().filter(Round::kept).count(),
                    p50max(r.stats(Round::freezeToGone)),
                    p50max(r.stats(Round::stampToLogged)),
                    p50max(r.stats(Round::stampToGone)),
                    r.setting.pauseDeadline().toMillis(),
                    p50max(r.stats(Round::backToRenewal)),
                    p50max(r.stats(Round::backToRunning)));
        }
        System.out.println();
        boolean failed = false;
        for (Result r : results) {
            String logged = String.format(
                    Locale.ROOT,
                    "the owner logged %d pauses and %d resumes for %d freezes",
                    r.loggedPauses,
                    r.loggedResumes,
                    r.rounds.size());
            long late = r.setting.timing().late().toMillis();
            long pastMark =
                    r.rounds.stream().filter(x -> x.stampToLogged() >= late).count();
            String mark = pastMark == 0
                    ? ""
                    : String.format(Locale.ROOT, "; NOTE: %d pauses logged at or past the late mark", pastMark);
            if (r.violations.isEmpty() && watchLinks) {
                System.out.printf(
                        Locale.ROOT,
                        "verdict %s: OK: none of %d freezes of %d ms paused the robots of the owner a watch link "
                                + "covers; a renewal was stamped at most %s after each link came back; the slot stayed "
                                + "with %s at epoch %d; no count went back; %s%n",
                        r.setting.profile().name(),
                        r.rounds.size(),
                        r.setting.freeze().toMillis(),
                        max(r.stats(Round::backToRenewal)),
                        r.owner,
                        r.epoch,
                        logged);
            } else if (r.violations.isEmpty()) {
                System.out.printf(
                        Locale.ROOT,
                        "verdict %s: OK: %d of %d freezes paused the robots (logged at most %s, gone from /health "
                                + "at most"
                                + " %s after the last renewal was stamped; late mark %d ms) and ran them again; the "
                                + "slot stayed with %s at epoch %d;"
                                + " no count went back; %s%s%n",
                        r.setting.profile().name(),
                        r.rounds.size(),
                        r.rounds.size(),
                        max(r.stats(Round::stampToLogged)),
                        max(r.stats(Round::stampToGone)),
                        late,
                        r.owner,
                        r.epoch,
                        logged,
                        mark);
            } else {
                failed = true;
                System.out.printf(
                        Locale.ROOT,
                        "verdict %s: FAILED: %s; %s%s%n",
                        r.setting.profile().name(),
                        String.join("; ", r.violations),
                        logged,
                        mark);
            }
        }
        return failed ? 1 : 0;
    }

    private Result run(Path logs, Database db, String dbName, Setting setting) {
        Profile profile = setting.profile();
        System.out.println(
                "== " + profile.label() + ", freeze " + setting.freeze().toMillis() + "ms");
        db.initSlots(dbName, 1);
        List<Integer> ports = TestPorts.free(2);
        int ownerPort = ports.get(0);
        NodeId ownerId = new NodeId("127.0.0.1", ownerPort);
        try (StandbyDatabase client = db.connect(dbName);
                TcpProxy proxy = proxy(db)) {
            RobotTable table = new RobotTable(client);
            for (int i = 0; i < robots; i++) {
                table.add(
                        new RobotTable.NewRobot(
                                String.format("counter-%03d", i),
                                "counter",
                                SLOT,
                                0,
                                1.0,
                                new Document("intervalMs", 100)),
                        OptionalDouble.empty());
            }
            SlotTable slots = new SlotTable(client);
            // The owner starts first and alone; the standby joins once the slot is the owner's.
            try (ChildJvm owner = node(new NodeStart(logs, dbName, profile, ownerPort, proxy.uri()));
                    ChildJvm other = awaitOwnerThenStandby(
                            owner, ownerId, slots, new NodeStart(logs, dbName, profile, ports.get(1), db.uri()))) {
                long epoch = slot(slots).epoch();
                Facts facts = new Facts(client, slots, ownerId, epoch);
                List<Round> done = new ArrayList<>();
                for (int n = 1; n <= rounds; n++) {
                    Round round = round(n, owner, ownerPort, proxy, slots, facts, setting);
                    done.add(round);
                    System.out.println(describe(round, facts));
                }
                String log = owner.output();
                int pauses = occurrences(log, "pausing its robots");
                int resumes = occurrences(log, "after a pause: its robots start again");
                List<String> violations = new ArrayList<>(facts.violations);
                long paused = done.stream().filter(Round::paused).count();
                long notPaused = done.size() - paused;
                if (watchLinks && (paused > 0 || pauses > 0)) {
                    violations.add(paused + " of " + done.size() + " freezes paused the robots of an owner a link "
                            + "covers (" + pauses + " pauses logged)");
                } else if (!watchLinks && notPaused > 0) {
                    violations.add(notPaused + " of " + done.size() + " freezes did not pause the robots");
                }
                long notResumed =
                        done.stream().filter(r -> r.paused() && !r.resumed()).count();
                if (notResumed > 0) {
                    violations.add(notResumed + " paused rounds did not run the robots again");
                }
                return new Result(setting, done, ownerId, epoch, pauses, resumes, violations);
            }
        }
    }

    /**
     * One freeze: every robot running, then the link frozen just after a renewal, /health read every 20 ms until the
     * robots are gone and the freeze ends, then until they all run again.
     */
    private Round round(
            int n, ChildJvm owner, int ownerPort, TcpProxy proxy, SlotTable slots, Facts facts, Setting setting) {
        SlotTiming timing = setting.timing();
        Waits.until(
                "round " + n + ": all " + robots + " robots running on the owner (log: " + owner.log() + ")",
                Duration.ofSeconds(60),
                EVERY,
                () -> running(ownerPort) == robots);
        if (watchLinks) {
            Waits.until(
                    "round " + n + ": the owner covered by the standby's link (its slot without a late mark)",
                    Duration.ofSeconds(60),
                    EVERY,
                    () -> slot(slots).lateMark() == null);
        }
        // A renewal or two at the steady pace, then the freeze right after the next one is stamped.
        Bench.sleep(timing.heartbeat());
        facts.check();
        Instant previous = slot(slots).time();
        Waits.until(
                "round " + n + ": a renewal stamped",
                timing.heartbeat().multipliedBy(3).plusSeconds(5),
                Duration.ofMillis(2),
                () -> slot(slots).time().isAfter(previous));
        Bench.sleep(AFTER_RENEWAL);
        Instant frozen = Instant.now();
        proxy.pause();
        // The last renewal stamped before the freeze: on a loaded machine the wait above can outlast a fast
        // heartbeat, and another renewal land meanwhile. None lands while the link is frozen.
        SlotView renewed = slot(slots);
        // The link comes back on a thread of its own, so that a slow read of /health cannot lengthen the freeze.
        CompletableFuture<Instant> linkBack = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("pause-resume").start(() -> {
            Bench.sleep(setting.freeze());
            proxy.resume();
            linkBack.complete(Instant.now());
        });
        Instant gone = null;
        while (!linkBack.isDone()) {
            // Timed when /health answered: what it told was true at some point before, at the latest then.
            if (gone == null && running(ownerPort) == 0) {
                gone = Instant.now();
            }
            facts.check();
            Bench.sleep(EVERY);
        }
        Instant back = linkBack.join();
        Instant renewal = null;
        Instant ranAgain = null;
        Duration atMost = timing.lease().multipliedBy(3).plusSeconds(30);
        while (ranAgain == null) {
            int running = running(ownerPort);
            Instant now = Instant.now();
            if (gone == null && running == 0) {
                gone = now; // after the link came back: late, but a pause
            } else if (gone != null && running == robots) {
                ranAgain = now;
            }
            SlotView slot = facts.check();
            if (renewal == null && slot.time().isAfter(renewed.time())) {
                renewal = slot.time();
            }
            if (gone == null && Duration.between(back, now).compareTo(timing.lease()) > 0) {
                break; // never paused, and the lease's worth of waiting is over
            }
            if (watchLinks && gone == null && renewal != null) {
                break; // rode through: renewed again, and nothing stopped
            }
            if (Duration.between(back, now).compareTo(atMost) > 0) {
                throw new IllegalStateException("round " + n + ": the robots did not run again within "
                        + atMost.toMillis() + " ms of the link coming back (log: " + owner.log() + ")");
            }
            Bench.sleep(EVERY);
        }
        Instant logged = pauseLogged(owner, renewed.time());
        return new Round(
                n,
                ms(frozen, back),
                gone == null ? -1 : ms(frozen, gone),
                gone == null ? -1 : ms(renewed.time(), gone),
                logged == null ? -1 : ms(renewed.time(), logged),
                renewal == null ? -1 : ms(back, renewal),
                ranAgain == null ? -1 : ms(back, ranAgain),
                facts.keptThisRound());
    }

    private String describe(Round r, Facts facts) {
        if (!r.paused()) {
            return String.format(
                    Locale.ROOT,
                    "round %d: the robots did NOT pause; link back after %d ms, renewal stamped %d ms later; %s",
                    r.n,
                    r.frozenFor,
                    r.backToRenewal,
                    facts.kept(r.kept()));
        }
        return String.format(
                Locale.ROOT,
                "round %d: robots gone %d ms after the freeze, %d ms after the last renewal was stamped"
                        + " (pause logged %d ms after it); link back after %d ms: renewal stamped %d ms and all %d "
                        + "robots running %d ms later; %s",
                r.n,
                r.freezeToGone,
                r.stampToGone,
                r.stampToLogged,
                r.frozenFor,
                r.backToRenewal,
                robots,
                r.backToRunning,
                facts.kept(r.kept()));
    }

    /**
     * What the database tells during a run: the slot's owner and epoch at every read, and every robot's checkpointed
     * count, never below one read before. Read on the bench's own connection, not the proxy.
     */
    private static final class Facts {
        private final StandbyDatabase client;
        private final SlotTable slots;
        private NodeId owner;
        private long epoch;
        private final Map<String, Long> highest = new HashMap<>();
        final List<String> violations = new ArrayList<>();
        private int violationsSeen;
        private int violationsAtRoundStart;
        private SlotView last;

        Facts(StandbyDatabase client, SlotTable slots, NodeId owner, long epoch) {
            this.client = client;
            this.slots = slots;
            this.owner = owner;
            this.epoch = epoch;
        }

        /** Reads the slot and the counts; records what broke a fact. Returns the slot. */
        SlotView check() {
            SlotView slot = slot(slots);
            if (!Objects.equals(owner, slot.owner()) || slot.epoch() != epoch) {
                violated("the slot moved from " + owner + " at epoch " + epoch + " to " + slot.owner() + " at epoch "
                        + slot.epoch());
                // Each move counts once, in the round it happened in.
                owner = slot.owner();
                epoch = slot.epoch();
            }
            last = slot;
            // A projection makes the embedded server copy the document: no torn read of a concurrent update.
            for (Document robot :
                    client.database().getCollection("robots").find().projection(Projections.include("context"))) {
                Document context = robot.get("context", new Document());
                if (context.get("count") instanceof Number count) {
                    String id = robot.getString("_id");
                    Long before = highest.get(id);
                    if (before != null && count.longValue() < before) {
                        violated(id + "'s count went back from " + before + " to " + count.longValue());
                    }
                    highest.merge(id, count.longValue(), Math::max);
                }
            }
            return slot;
        }

        private void violated(String what) {
            violationsSeen++;
            if (!violations.contains(what)) {
                violations.add(what);
            }
        }

        /** Whether no fact broke since the previous call: during the round that just ended. */
        boolean keptThisRound() {
            boolean kept = violationsSeen == violationsAtRoundStart;
            violationsAtRoundStart = violationsSeen;
            return kept;
        }

        /**
         * The slot as last read, and what broke last if {@code kept} is false (the round that just ended broke
         * something).
         */
        String kept(boolean kept) {
            return "slot with " + last.owner() + " at epoch " + last.epoch()
                    + (kept ? "" : " (" + violations.getLast() + ")");
        }
    }

    /** How to start one node: where its log goes, its database and settings, its port, and the MongoDB it uses. */
    private record NodeStart(Path logs, String dbName, Profile profile, int port, String mongo) {}

    /**
     * Waits until {@code owner} holds the slot, then starts the standby ({@code second}) and waits until it is ready;
     * null without a standby.
     */
    private ChildJvm awaitOwnerThenStandby(ChildJvm owner, NodeId ownerId, SlotTable slots, NodeStart second) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        SlotView seen = slot(slots);
        while (!ownerId.equals(seen.owner())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        ownerId + " does not hold " + SLOT + " after 60 s: " + seen + " (log: " + owner.log() + ")");
            }
            Bench.sleep(EVERY);
            seen = slot(slots);
        }
        if (!standby) {
            return null;
        }
        ChildJvm other = node(second);
        NodeHttp.awaitReady(other, second.port(), Duration.ofSeconds(60));
        return other;
    }

    private static ChildJvm node(NodeStart start) {
        List<String> args = Children.nodeArgs(start.port(), start.mongo(), start.dbName());
        args.addAll(start.profile().nodeArgs());
        return Children.standby(start.logs(), start.dbName() + "-node-" + start.port(), List.of("-Xmx256m"), args);
    }

    private static TcpProxy proxy(Database db) {
        try {
            return TcpProxy.to(db.uri());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SlotView slot(SlotTable slots) {
        return slots.get(SLOT).orElseThrow(() -> new IllegalStateException(SLOT + " is gone"));
    }

    /** The robots the node lists running on the slot on /health; -1 when it does not answer. */
    private static int running(int port) {
        String body = NodeHttp.body(port, "/health");
        if (body == null) {
            return -1;
        }
        Document robots = Document.parse(body).get("robots", Document.class);
        return robots != null && robots.get(SLOT) instanceof List<?> list ? list.size() : 0;
    }

    /**
     * When the owner logged its first "pausing its robots" after {@code after}, by the time on the log line (this
     * machine's clock and zone, to the millisecond; the node logs it as it decides, before the robots stop), or null.
     */
    private static Instant pauseLogged(ChildJvm owner, Instant after) {
        LocalDate today = LocalDate.now(ZoneId.systemDefault());
        for (String line : owner.output().split("\n")) {
            if (line.contains("pausing its robots") && line.length() > 12) {
                try {
                    Instant at = LocalTime.parse(line.substring(0, 12))
                            .atDate(today)
                            .atZone(ZoneId.systemDefault())
                            .toInstant();
                    if (at.isAfter(after)) {
                        return at;
                    }
                } catch (DateTimeParseException e) {
                    // not a line of the node's own log pattern
                }
            }
        }
        return null;
    }

    private static int occurrences(String text, String what) {
        int count = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            count++;
        }
        return count;
    }

    private static long ms(Instant from, Instant to) {
        return Duration.between(from, to).toMillis();
    }

    private static String max(Stats stats) {
        return stats.count() == 0 ? "-" : stats.max() + " ms";
    }

    private static String p50max(Stats stats) {
        return stats.count() == 0 ? "-" : stats.p50() + " / " + stats.max() + " ms";
    }
}
