package io.standby.node.web;

/**
 * The names of the meters a node registers when given a Micrometer registry ({@link StandbyMetrics#of}). Prometheus
 * shows them with dots as underscores, counters ending in {@code _total} and timers in {@code _seconds} (for example
 * {@code standby_slot_claims_total}).
 */
public final class StandbyMeters {

    /** Gauge: the slots this node owns now. */
    public static final String SLOTS_OWNED = "standby.slots.owned";
    /**
     * Gauge, tag {@code state} ({@code free}, {@code owned}, {@code expired}: owned but not renewed within its lease,
     * {@code revoked}: released by an operator, waiting out its lease): the cluster's slots, as this node reads them
     * when scraped (by the database's clock, at most once a second; NaN when the read fails). Every node reports the
     * same cluster: a slot not {@code owned} for long is a slot whose robots nobody runs.
     */
    public static final String CLUSTER_SLOTS = "standby.cluster.slots";
    /** Counter, tag {@code outcome}: won, conflict (another node's compare-and-set went first), failed (no answer). */
    public static final String CLAIMS = "standby.slot.claims";
    /** Timer: the round trip of each successful lease renewal. */
    public static final String RENEWALS = "standby.lease.renewals";
    /** Counter: renewals that got no answer (error or timeout); the lease ends only when its deadline passes. */
    public static final String RENEWAL_FAILURES = "standby.lease.renewal.failures";
    /**
     * Counter, tag {@code reason}: leases that ended other than by a graceful release. {@code fenced} is a self-fence
     * (no renewal within the lease minus the fence margin); {@code taken} and {@code revoked} mean another node or an
     * operator took the slot; {@code vanished}, the slot document is gone.
     */
    public static final String LOSSES = "standby.slot.losses";
    /**
     * Counter: leases paused, whatever the cause: at the late mark (fast failover: no renewal acknowledged for the late
     * mark minus its margin) or at a watch link's deadline ({@link #WATCH_PAUSES} counts these apart), so the slot's
     * robots stopped while the node kept the slot.
     */
    public static final String PAUSES = "standby.slot.pauses";
    /** Gauge: slots this node holds whose robots are paused right now, waiting for an acknowledged renewal. */
    public static final String SLOTS_PAUSED = "standby.slots.paused";
    /** Counter: slots this node released gracefully (a stop or a drain). */
    public static final String RELEASES = "standby.slot.releases";
    /**
     * Timer, tag {@code how} ({@code expired}: the lease ran out; {@code owner_gone}: the owner's process was found
     * gone, see {@code --fast-failover}; {@code link}: this node's watch link to the owner died, see
     * {@code --watch-links}): for each takeover of a slot whose owner stopped renewing, how long the slot went without
     * a heartbeat, from the former owner's last one (by the database's clock) to the claim.
     */
    public static final String TAKEOVER_GAP = "standby.slot.takeover.gap";
    /**
     * Gauge, tag {@code side}: watch links open now, from standbys that watch this node ({@code owner}) and to owners
     * this node watches ({@code standby}).
     */
    public static final String WATCH_LINKS = "standby.watch.links";
    /**
     * Counter, tag {@code side}: watch links that ended, on this node's side as an owner (each costs one renewal) or
     * died as a standby (each may lead to a takeover).
     */
    public static final String WATCH_LINK_ENDS = "standby.watch.link.ends";
    /**
     * Counter: watch handshakes and messages refused: peers without the cluster's key, forged, replayed or out-of-order
     * messages. Anything above zero on a private network deserves a look.
     */
    public static final String WATCH_REFUSED = "standby.watch.refused";
    /** Counter: leases paused because a watch link's deadline passed before a renewal outran it. */
    public static final String WATCH_PAUSES = "standby.watch.pauses";
    /** Counter: slots this node took over by a dead watch link. */
    public static final String WATCH_TAKEOVERS = "standby.watch.takeovers";
    /**
     * Gauge, tag {@code map}: the entries of one of the node's own maps keyed by slots, owners, peers or robots
     * ({@code StartedNode.REMEMBERED} names them: its leases, the owners it found gone, its observations of other
     * owners, its watch links to owners, its slot runs and robot runs ...). Each follows what is alive now, bounded by
     * the slots, nodes and robots there are; one that only grows in a long run is a leak ({@code bench soak}).
     */
    public static final String REMEMBERED = "standby.node.remembered";
    /** Gauge, tag {@code state} (running, failed): the robots of this node's slots. */
    public static final String ROBOTS = "standby.robots";
    /** Counter: robots that threw and were restarted after a backoff. */
    public static final String ROBOT_RESTARTS = "standby.robot.restarts";
    /** Counter: robots that failed for good (FAILED until started again). */
    public static final String ROBOT_FAILURES = "standby.robot.failures";
    /** Timer: from a robot's {@code checkpoint()} call to its acknowledgement by a majority, retries included. */
    public static final String CHECKPOINTS = "standby.robot.checkpoints";
    /** Counter: writes of a robot's run the database rejected because another runner holds the robot (fenced). */
    public static final String FENCED_WRITES = "standby.robot.writes.fenced";
    /** Distribution summary: the checkpoints and status changes in each bulk write the node sends. */
    public static final String WRITE_BATCHES = "standby.robot.write.batches";
    /**
     * Timer, tags {@code command}, {@code collection}, {@code status}: every database command of the node, from
     * Micrometer's driver command listener (its name, not ours).
     */
    public static final String DATABASE_COMMANDS = "mongodb.driver.commands";

    private StandbyMeters() {}
}
