package io.standby.node.web;

import com.mongodb.MongoClientSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.mongodb.MongoMetricsCommandListener;
import io.micrometer.core.instrument.binder.mongodb.MongoMetricsConnectionPoolListener;
import io.standby.node.StartedNode;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.ClaimOutcome;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotState;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import io.standby.slot.WatchLinkCounts;
import io.standby.slot.Workload;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The node's meters ({@link StandbyMeters}) on a Micrometer registry, fed by the protocol's and the runtime's
 * listeners. Loaded only by {@link StandbyMetrics}, so Micrometer stays optional.
 */
final class NodeMetrics implements SlotListener, RobotListener {

    private final MeterRegistry registry;
    private final AtomicInteger owned = new AtomicInteger();
    /** The leases paused now: a lease that ends while paused leaves this set too. */
    private final Set<Lease> paused = ConcurrentHashMap.newKeySet();

    private final Counter pauses;
    private final Map<ClaimOutcome, Counter> claims = new EnumMap<>(ClaimOutcome.class);
    private final Map<LossReason, Counter> losses = new EnumMap<>(LossReason.class);
    private final Timer renewals;
    private final Counter renewalFailures;
    private final Map<Takeover, Timer> takeoverGaps = new EnumMap<>(Takeover.class);
    private final Counter restarts;
    private final Counter failures;
    private final Timer checkpoints;
    private final Counter fenced;
    private final DistributionSummary batches;
    private Supplier<WatchLinkCounts> links;

    NodeMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder(StandbyMeters.SLOTS_OWNED, owned, AtomicInteger::get)
                .description("Slots this node owns")
                .register(registry);
        for (ClaimOutcome outcome : ClaimOutcome.values()) {
            claims.put(
                    outcome,
                    Counter.builder(StandbyMeters.CLAIMS)
                            .tag("outcome", outcome.name().toLowerCase())
                            .description("Claims of slots, by how they went")
                            .register(registry));
        }
        for (LossReason reason : LossReason.values()) {
            losses.put(
                    reason,
                    reason == LossReason.RELEASED
                            ? Counter.builder(StandbyMeters.RELEASES)
                                    .description("Slots released gracefully")
                                    .register(registry)
                            : Counter.builder(StandbyMeters.LOSSES)
                                    .tag("reason", reason.name().toLowerCase())
                                    .description("Leases that ended other than by a graceful release")
                                    .register(registry));
        }
        renewals = Timer.builder(StandbyMeters.RENEWALS)
                .description("Round trip of successful lease renewals")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        pauses = Counter.builder(StandbyMeters.PAUSES)
                .description("Leases paused at the late mark")
                .register(registry);
        Gauge.builder(StandbyMeters.SLOTS_PAUSED, paused, Set::size)
                .description("Slots whose robots are paused now")
                .register(registry);
        renewalFailures = Counter.builder(StandbyMeters.RENEWAL_FAILURES)
                .description("Renewals that got no answer")
                .register(registry);
        for (Takeover how : Takeover.values()) {
            takeoverGaps.put(
                    how,
                    Timer.builder(StandbyMeters.TAKEOVER_GAP)
                            .tag("how", how.name().toLowerCase())
                            .description("How long a taken-over slot went without a heartbeat")
                            .publishPercentileHistogram()
                            .minimumExpectedValue(Duration.ofMillis(100))
                            .maximumExpectedValue(Duration.ofMinutes(2))
                            .register(registry));
        }
        restarts = Counter.builder(StandbyMeters.ROBOT_RESTARTS)
                .description("Robots restarted after a failure")
                .register(registry);
        failures = Counter.builder(StandbyMeters.ROBOT_FAILURES)
                .description("Robots that failed for good")
                .register(registry);
        checkpoints = Timer.builder(StandbyMeters.CHECKPOINTS)
                .description("From checkpoint() to its acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        fenced = Counter.builder(StandbyMeters.FENCED_WRITES)
                .description("Robot writes rejected: another runner holds the robot")
                .register(registry);
        batches = DistributionSummary.builder(StandbyMeters.WRITE_BATCHES)
                .description("Writes per bulk sent")
                .register(registry);
    }

    /** The robots gauges, once the runtime that counts them exists. */
    void robots(Supplier<Workload> workload) {
        Gauge.builder(StandbyMeters.ROBOTS, () -> workload.get().running())
                .tag("state", "running")
                .description("Robots of this node's slots, by state")
                .register(registry);
        Gauge.builder(StandbyMeters.ROBOTS, () -> workload.get().failed())
                .tag("state", "failed")
                .description("Robots of this node's slots, by state")
                .register(registry);
    }

    /** The sizes of the node's own maps, one gauge per map, read when scraped. */
    void remembered(Supplier<Map<String, Integer>> sizes) {
        for (String map : StartedNode.REMEMBERED) {
            Gauge.builder(StandbyMeters.REMEMBERED, () -> sizes.get().getOrDefault(map, 0))
                    .tag("map", map)
                    .description("Entries of the node's own maps keyed by slots, owners, peers or robots")
                    .register(registry);
        }
    }

    /** The cluster's slots by state, read when scraped. */
    void clusterSlots(SlotCensus census) {
        for (SlotState state : SlotState.values()) {
            Gauge.builder(StandbyMeters.CLUSTER_SLOTS, census, c -> c.count(state))
                    .tag("state", state.name().toLowerCase())
                    .description("The cluster's slots by state, as this node reads them")
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** The watch links' gauges and counters, read from the node when scraped. */
    void watchLinks(Supplier<WatchLinkCounts> links) {
        // A function counter holds what it reads weakly: this field keeps it for the node's life.
        this.links = links;
        Gauge.builder(StandbyMeters.WATCH_LINKS, () -> links.get().watchedBy())
                .tag("side", "owner")
                .description("Watch links open now, from standbys (owner) or to owners (standby)")
                .register(registry);
        Gauge.builder(StandbyMeters.WATCH_LINKS, () -> links.get().watching())
                .tag("side", "standby")
                .description("Watch links open now, from standbys (owner) or to owners (standby)")
                .register(registry);
        FunctionCounter.builder(
                        StandbyMeters.WATCH_LINK_ENDS, links, l -> l.get().ownerEnds())
                .tag("side", "owner")
                .description("Watch links that ended, as an owner (each costs a renewal) or as a standby")
                .register(registry);
        FunctionCounter.builder(
                        StandbyMeters.WATCH_LINK_ENDS, links, l -> l.get().standbyEnds())
                .tag("side", "standby")
                .description("Watch links that ended, as an owner (each costs a renewal) or as a standby")
                .register(registry);
        FunctionCounter.builder(StandbyMeters.WATCH_REFUSED, links, l -> l.get().refused())
                .description("Watch handshakes and messages refused: no cluster key, forged, replayed or out of order")
                .register(registry);
        FunctionCounter.builder(StandbyMeters.WATCH_PAUSES, links, l -> l.get().pauses())
                .description("Leases paused at a watch link's deadline")
                .register(registry);
        FunctionCounter.builder(
                        StandbyMeters.WATCH_TAKEOVERS, links, l -> l.get().takeovers())
                .description("Slots taken over by a dead watch link")
                .register(registry);
    }

    /** Counts every database command and watches the connection pools of a client built with these settings. */
    void instrument(MongoClientSettings.Builder client) {
        client.addCommandListener(new MongoMetricsCommandListener(registry))
                .applyToConnectionPoolSettings(
                        pool -> pool.addConnectionPoolListener(new MongoMetricsConnectionPoolListener(registry)));
    }

    @Override
    public void acquired(Lease lease) {
        owned.incrementAndGet();
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        owned.decrementAndGet();
        paused.remove(lease);
        losses.get(reason).increment();
    }

    @Override
    public void paused(Lease lease) {
        pauses.increment();
        paused.add(lease);
    }

    @Override
    public void resumed(Lease lease) {
        paused.remove(lease);
    }

    @Override
    public void claimed(SlotView slot, ClaimOutcome outcome) {
        claims.get(outcome).increment();
    }

    @Override
    public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
        takeoverGaps.get(how).record(unowned);
    }

    @Override
    public void renewed(Lease lease, Duration latency) {
        renewals.record(latency);
    }

    @Override
    public void renewalFailed(Lease lease) {
        renewalFailures.increment();
    }

    @Override
    public void checkpointed(String robotId, Duration latency) {
        checkpoints.record(latency);
    }

    @Override
    public void fenced(String robotId) {
        fenced.increment();
    }

    @Override
    public void restarting(String robotId) {
        restarts.increment();
    }

    @Override
    public void failed(String robotId) {
        failures.increment();
    }

    @Override
    public void batchSent(int writes) {
        batches.record(writes);
    }
}
