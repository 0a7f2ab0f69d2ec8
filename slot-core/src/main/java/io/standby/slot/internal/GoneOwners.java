package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a slot's owner process is gone, from TCP connects to its ip:port (its identity, which only a live
 * process holds, because a node binds it before it claims anything and keeps it until it has released everything). The
 * owner is gone only if its address refused two connects a short gap apart <em>and</em> accepted one of this node's
 * connects before <em>while that same owner instance held it</em>: that earlier acceptance proves that this node
 * reaches that very process (not a local twin of it, not through a firewall that rejects), so a refusal now means that
 * process has exited. The evidence is kept per (address, instance), never per address alone: the next process under the
 * same address may sit behind a rule that rejects this node from its start, and an acceptance of its predecessor says
 * nothing about it. And it ages: an acceptance counts for {@link #EVIDENCE_AGE} on this node's monotonic clock, is
 * renewed by {@link #learn} while the owner is timely, and is forgotten at once when a timely owner's address refuses
 * (its refusals then say nothing about its death). Anything else (an acceptance, a timeout, another error, an instance
 * never seen accepting, an acceptance too old) proves nothing, and the slot waits for its lease.
 *
 * <p>Runs on the poll thread only.
 */
public final class GoneOwners {

    private static final Logger log = LoggerFactory.getLogger(GoneOwners.class);
    /**
     * How often an owner instance that has not accepted yet is tried again, and how old an acceptance of a timely owner
     * may grow before {@link #learn} renews it.
     */
    static final Duration RETRY = Duration.ofSeconds(30);
    /**
     * How long an acceptance counts as evidence, on this node's monotonic clock. It proves that this node reached that
     * process then; the network between them can change while it lives (a rule that rejects, its ip moved), so it must
     * not count forever. Renewed every {@link #RETRY} while the owner is timely, it is at most {@code RETRY + poll} old
     * when the owner dies, so one minute still covers every poll of the late window up to the end of a lease of up to
     * about {@code 30 s - poll} (the default 5 s, or a 20 s lease). Past it a fast takeover finds no evidence and the
     * slot waits for its lease: slower, never less safe. Shorter would cost more connects to timely owners; longer
     * would trust an older path.
     */
    static final Duration EVIDENCE_AGE = Duration.ofSeconds(60);
    /** Between the two connects that must both be refused. */
    public static final Duration GAP = Duration.ofMillis(30);

    /** Fast failover off: never probes, never finds an owner gone; a slot always waits for its lease. */
    public static final GoneOwners OFF =
            new GoneOwners(OwnerProbe.NONE, d -> {}, () -> 0, Duration.ZERO, Duration.ZERO);

    private final OwnerProbe probe;
    private final Sleeper sleeper;
    private final MonotonicClock clock;
    private final Duration timeout;
    private final Duration gap;
    /** When each owner instance's address last accepted a connect of this node's (clock nanos). */
    private final Map<Owner, Long> seenAccepting = new HashMap<>();
    /** When each owner instance without young evidence was last tried. */
    private final Map<Owner, Long> lastTried = new HashMap<>();
    /** Whether each owner address is one of this machine's (loopback included). */
    private final Map<NodeId, Boolean> local = new HashMap<>();
    /** When aged-out entries were last forgotten. */
    private long swept;

    /** One owner process: the address it binds and the instance id of that process start. */
    private record Owner(NodeId node, String instance) {}

    /** Fast failover for a node with this heartbeat: real connects, each within {@link #connectTimeout}. */
    public static GoneOwners overTcp(MonotonicClock clock, Duration heartbeat) {
        return new GoneOwners(OwnerProbe.TCP, Sleeper.THREAD, clock, connectTimeout(heartbeat), GAP);
    }

    /**
     * @param timeout how long one connect may take
     * @param gap between the two connects that must both be refused
     */
    public GoneOwners(OwnerProbe probe, Sleeper sleeper, MonotonicClock clock, Duration timeout, Duration gap) {
        this.probe = probe;
        this.sleeper = sleeper;
        this.clock = clock;
        this.timeout = timeout;
        this.gap = gap;
        this.swept = clock.nanoTime();
    }

    /**
     * Whether connects to {@code owner} can tell anything about the process with instance id {@code instance}: not if
     * the address is one of this machine's (loopback included) while the instance runs on another host, whose address
     * it is too. {@code host} is this node's host fingerprint.
     */
    public boolean canJudge(NodeId owner, String instance, String host) {
        forgetAgedOut(clock.nanoTime());
        boolean onThisMachine = local.computeIfAbsent(owner, GoneOwners::isLocalAddress);
        return !onThisMachine || host != null && host.equals(NodeConfig.hostOf(instance));
    }

    private static boolean isLocalAddress(NodeId node) {
        try {
            InetAddress address = InetAddress.getByName(node.ip());
            return address.isLoopbackAddress()
                    || address.isAnyLocalAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (UnknownHostException | SocketException e) {
            // Cannot tell: taken as this machine's, which is judged only for an owner on this host.
            return true;
        }
    }

    /**
     * For an owner whose heartbeat is timely: connects once to the address of owner instance {@code instance} at
     * {@code owner} unless that instance was seen accepting less than {@link #RETRY} ago (and at most once per
     * {@code RETRY} and instance), so that a later refusal from it can count. An acceptance is remembered with its
     * time; a refusal forgets what was seen, since a timely owner that refuses is alive behind something that rejects.
     */
    public void learn(NodeId owner, String instance) {
        long now = clock.nanoTime();
        forgetAgedOut(now);
        Owner key = new Owner(owner, instance);
        Long seen = seenAccepting.get(key);
        if (seen != null && now - seen < RETRY.toNanos()) {
            return;
        }
        Long tried = lastTried.get(key);
        if (tried != null && now - tried < RETRY.toNanos()) {
            return;
        }
        lastTried.put(key, now);
        OwnerProbe.Result result = probe.probe(owner, timeout);
        if (result == OwnerProbe.Result.ACCEPTED) {
            seenAccepting.put(key, now);
            lastTried.remove(key);
        } else if (result == OwnerProbe.Result.REFUSED) {
            seenAccepting.remove(key);
        }
    }

    /**
     * Forgets, once per {@link #RETRY}, evidence that has aged out and retry marks that no longer hold anything back,
     * so that memory follows the owners of the last minute, not every instance ever seen. The local-address cache goes
     * too: an owner's address is often new with each instance (a pod ip), and an address can be added to or removed
     * from this machine meanwhile.
     */
    private void forgetAgedOut(long now) {
        if (now - swept < RETRY.toNanos()) {
            return;
        }
        swept = now;
        seenAccepting.values().removeIf(seen -> now - seen >= EVIDENCE_AGE.toNanos());
        lastTried.values().removeIf(tried -> now - tried >= RETRY.toNanos());
        local.clear();
    }

    /**
     * How many entries this node keeps, for its meters and tests of its memory. Read from any thread without a lock:
     * only the maps' sizes, which may be a poll stale.
     */
    public int remembered() {
        return seenAccepting.size() + lastTried.size() + local.size();
    }

    /**
     * How long one connect may take, for a node with this heartbeat: a quarter of it, between 50 and 250 ms. A live
     * peer on a network that can carry a heartbeat answers a connect well within that.
     */
    public static Duration connectTimeout(Duration heartbeat) {
        Duration quarter = heartbeat.dividedBy(4);
        Duration min = Duration.ofMillis(50);
        Duration max = Duration.ofMillis(250);
        return quarter.compareTo(min) < 0 ? min : quarter.compareTo(max) > 0 ? max : quarter;
    }

    /** One connect to an address, e.g. this node's own, to see that it still listens. */
    public OwnerProbe.Result probe(NodeId node) {
        return probe.probe(node, timeout);
    }

    /**
     * Whether {@code owner}'s address accepted a connect of this node's while instance {@code instance} held it, less
     * than {@link #EVIDENCE_AGE} ago.
     */
    public boolean seenAccepting(NodeId owner, String instance) {
        Long seen = seenAccepting.get(new Owner(owner, instance));
        return seen != null && clock.nanoTime() - seen < EVIDENCE_AGE.toNanos();
    }

    /**
     * The evidence that owner instance {@code instance} at {@code owner} is gone, or empty if there is none: two
     * connects a gap apart, both refused, to an address that accepted before while that instance held it, less than
     * {@link #EVIDENCE_AGE} ago.
     *
     * @throws InterruptedException if interrupted between the two connects
     */
    public Optional<String> gone(NodeId owner, String instance) throws InterruptedException {
        if (!seenAccepting(owner, instance)) {
            return Optional.empty();
        }
        OwnerProbe.Result first = probe.probe(owner, timeout);
        if (first != OwnerProbe.Result.REFUSED) {
            log.debug("{} answered {} to a probe: no evidence", owner, first);
            return Optional.empty();
        }
        sleeper.sleep(gap);
        OwnerProbe.Result second = probe.probe(owner, timeout);
        if (second != OwnerProbe.Result.REFUSED) {
            log.debug("{} refused, then answered {}: no evidence", owner, second);
            return Optional.empty();
        }
        return Optional.of("connects to " + owner + " refused twice, " + gap.toMillis()
                + " ms apart, by an address that accepted before while instance " + instance + " held it");
    }
}
