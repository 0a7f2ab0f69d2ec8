package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A standby's side of the watch links (fast takeover): a connection to each owner process it watches, and
 * when it may take that owner's slots after the connection ended. See {@link OwnerLinks} for the owner's
 * side and the argument.
 *
 * <p>For each link it records the highest beat received and when it received the last ping it
 * acknowledged, on its own clock. The watch lease comes from the owner's document, which only a node with
 * write access to the database can write, never from the wire. The link is dead once it ended (end of
 * stream, an error, a refused message) or has been silent for half the watch lease; a dead link never
 * comes back (a new one is opened). From {@code 1.1 × watch lease} after that last acknowledged ping's
 * receipt, the owner has paused every lease whose last acknowledged write carried a beat no higher than
 * those received, unless a higher beat has landed; so a claim of a slot still at such a beat, owner and
 * instance as on the link, is safe. Past {@link #FORGET_AFTER} from its death, a dead link is forgotten:
 * the owner forgets it only later.
 *
 * <p>A ping whose beat is lower than one received before on the link, or far above the beat the owner's
 * document showed, is refused and counted, and the link ends: the transport authenticates every message
 * with the cluster's key, so such a ping means a bug or a forgery, and a link is only as good as its
 * highest beat. An owner whose links keep dying young (a slow or flaky path, a round trip above half the
 * watch lease) is linked again only after a pause that doubles, from a second up to a minute: each death
 * costs the owner a renewal.
 *
 * <p>The poll thread opens and forgets links and asks what may be taken; the transport's threads report
 * what arrives. Nothing here waits on the network.
 */
public final class StandbyLinks {

    private static final Logger log = LoggerFactory.getLogger(StandbyLinks.class);

    /** How long after its death a link may still be claimed by; the owner keeps it twice as long. */
    static final Duration FORGET_AFTER = Duration.ofSeconds(30);
    /** How long a connect and the handshake may take before the link counts as dead. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /**
     * How far above the beat the owner's document last showed a ping's beat may be. An owner announces each
     * beat before the write that carries it, and writes a few a heartbeat, so a real ping is a handful above
     * what this node read; a million is years of writes.
     */
    static final long BEAT_SLACK = 1L << 20;
    /** The first pause before linking again to an owner whose link died young; it doubles at each such death. */
    static final Duration RETRY_FIRST = Duration.ofSeconds(1);
    /** The longest pause before linking again. */
    static final Duration RETRY_MAX = Duration.ofMinutes(1);
    /** A link that lived this long died of something passing: the next one is opened at once. */
    static final Duration STABLE = Duration.ofMinutes(1);

    /** Opens connections to owners; {@link #NONE} never does. */
    public interface Connector {
        /**
         * Starts connecting to {@code target}'s watch port, without waiting; what arrives goes to
         * {@code link}. Returns the connection, whose {@link Connection#goodbye()} ends it for good.
         */
        Connection connect(Target target, Link link);
    }

    /** A standby's end of one link, as the transport sends on it. Neither method waits on the network. */
    public interface Connection {
        /** Says goodbye (this node gives up claiming by the link) and closes. */
        void goodbye();

        /** Closes without a goodbye: this node counts the link dead, and may claim by it. */
        default void hangUp() {
        }
    }

    /** Never connects: no owner is ever watched. */
    public static final Connector NONE = (target, link) -> () -> { };

    /**
     * An owner process to watch, as its owner document shows it: its address, its instance, where it listens
     * for watchers, its watch lease, and the beat the document showed.
     */
    public record Target(NodeId node, String instance, int port, Duration watchLease, long beat) {

        /** The owner document's id: one link per owner process. */
        String ownerId() {
            return SlotRules.ownerId(node, instance);
        }
    }

    /** One link: what arrived on it. */
    public final class Link {
        private final Target target;
        private final long id;
        private final long watchLeaseNanos;
        private Connection connection;
        private boolean authenticated;
        private long maxBeat = -1;
        /** The beat the owner's document showed at the last poll: pings far above it are refused. */
        private long shownBeat;
        private long lastReceived = Long.MIN_VALUE;
        private final long openedAt;
        private boolean ended;
        private long endedAt;
        private String why;
        /** Whether this node has stamped the owner's slots with the server's time since this link died. */
        private boolean marked;

        private Link(Target target, long id, long now) {
            this.target = target;
            this.id = id;
            this.watchLeaseNanos = target.watchLease().toNanos();
            this.shownBeat = target.beat();
            this.openedAt = now;
        }

        /**
         * The owner proved that it holds the cluster's key and is {@code instance}: false (and the link ends)
         * if that is another instance than the one watched, or the link is dead already.
         */
        public boolean authenticated(String instance) {
            synchronized (StandbyLinks.this) {
                long now = clock.nanoTime();
                if (!target.instance().equals(instance)) {
                    endLocked(now, "the owner at " + target.node() + " is instance " + instance + ", not " + target.instance());
                    return false;
                }
                if (dead(now)) {
                    return false;
                }
                authenticated = true;
                return true;
            }
        }

        /**
         * A ping arrived, its tag checked by the transport. Returns true if the transport must acknowledge
         * it: the receipt is recorded first, so the acknowledgement never extends the owner's deadline beyond
         * what this side counts from. False if the link is dead, or the ping is refused (see {@link StandbyLinks}).
         */
        public boolean pinged(long beat) {
            synchronized (StandbyLinks.this) {
                long now = clock.nanoTime();
                if (!authenticated || dead(now)) {
                    return false;
                }
                if (beat < maxBeat) {
                    refusedLocked(now, "a ping at beat " + beat + " after one at " + maxBeat);
                    return false;
                }
                if (beat - shownBeat > BEAT_SLACK) {
                    refusedLocked(now, "a ping at beat " + beat + ", far above the " + shownBeat + " the owner's document showed");
                    return false;
                }
                if (lastReceived == Long.MIN_VALUE) {
                    log.info("Watching {} (instance {}): its slots are taken about {} ms after this link dies", target.node(),
                            target.instance(), waitNanos() / 1_000_000);
                }
                maxBeat = beat;
                lastReceived = now;
                return true;
            }
        }

        /** The transport refused what the owner's end sent (a bad tag, a sequence out of order): the link ends. */
        public void refused(String reason) {
            synchronized (StandbyLinks.this) {
                refusedLocked(clock.nanoTime(), reason);
            }
        }

        /** The connection ended: end of stream, an error, a refused connect. */
        public void ended(String reason) {
            synchronized (StandbyLinks.this) {
                endLocked(clock.nanoTime(), reason);
            }
        }

        private void refusedLocked(long now, String reason) {
            if (!ended) {
                stats.refused.incrementAndGet();
                log.warn("Refused a message on the watch link to {} (instance {}): {}", target.node(), target.instance(), reason);
            }
            endLocked(now, "refused: " + reason);
        }

        private void endLocked(long now, String reason) {
            if (!ended) {
                ended = true;
                endedAt = now;
                why = reason;
                if (lastReceived != Long.MIN_VALUE) {
                    stats.standbyEnds.incrementAndGet();
                }
            }
        }

        /** Given up (no longer watched, or this node stops): no claim is made by it, and it is not counted as a death. */
        private void giveUpLocked(long now) {
            if (!ended) {
                ended = true;
                endedAt = now;
                why = "given up";
                lastReceived = Long.MIN_VALUE;
            }
        }

        /** Dead: ended, or silent for half the watch lease since the last ping, or without a handshake in time. */
        private boolean dead(long now) {
            if (!ended) {
                if (lastReceived != Long.MIN_VALUE) {
                    if (now - lastReceived >= watchLeaseNanos / 2) {
                        endLocked(now, "silent for " + Duration.ofNanos(now - lastReceived).toMillis() + " ms");
                    }
                } else if (now - openedAt >= Math.max(CONNECT_TIMEOUT.toNanos(), watchLeaseNanos / 2)) {
                    endLocked(now, "no ping within " + Duration.ofNanos(now - openedAt).toMillis() + " ms of the connect");
                }
            }
            return ended;
        }

        /** From when a claim by this link is safe, on this node's clock; empty if never (no ping received). */
        private OptionalLong claimableFrom() {
            if (lastReceived == Long.MIN_VALUE) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(lastReceived + waitNanos());
        }

        /** 1.1 watch leases: how long after the last ping this node waits, and how old the server's mark must be. */
        private long waitNanos() {
            return watchLeaseNanos + watchLeaseNanos / 10;
        }

        /** Dead, with a ping received, and not yet forgotten: a link a claim may still be made by. */
        private boolean usable(long now) {
            return dead(now) && claimableFrom().isPresent() && now - endedAt < FORGET_AFTER.toNanos();
        }

        private Claimable claimable() {
            return new Claimable(target, maxBeat, Duration.ofNanos(waitNanos()), "its watch link " + why, id);
        }
    }

    /**
     * A dead link this node may claim by: the owner, the highest beat a claim may match, how old, by the
     * server's clock, the mark of the link's end must be ({@link SlotStore#markLinkEnd}), and which link.
     */
    public record Claimable(Target target, long maxBeat, Duration markAge, String why, long link) {
    }

    /** When this node links again to an owner whose links died young, and how many did in a row. */
    private static final class Retry {
        int deaths;
        long notBefore;
    }

    private final MonotonicClock clock;
    private final Connector connector;
    private final WatchStats stats;
    /** The current link to each owner process watched, by owner document id. */
    private final Map<String, Link> links = new HashMap<>();
    /** Dead links a claim may still be made by, until forgotten. */
    private final List<Link> dead = new ArrayList<>();
    /** The links {@link #unmarked()} last returned: a stamp written after it dates the end of these only. */
    private final List<Link> toMark = new ArrayList<>();
    /** Owners whose last link died young, by owner document id: only owners still watched. */
    private final Map<String, Retry> retries = new HashMap<>();
    private long nextId = 1;

    public StandbyLinks(MonotonicClock clock, Connector connector) {
        this(clock, connector, new WatchStats());
    }

    public StandbyLinks(MonotonicClock clock, Connector connector, WatchStats stats) {
        this.clock = clock;
        this.connector = connector;
        this.stats = stats;
    }

    /** Whether watch links are on. */
    public boolean isOn() {
        return connector != NONE;
    }

    /**
     * Keeps a live link to each of {@code targets} (owners this node would take from), and says goodbye to
     * the live links of owners no longer among them. A dead link is kept, for claims, until forgotten; an
     * owner still among the targets gets a new link beside it, since a live owner's link may break for
     * many reasons, but only after a pause if its links keep dying young.
     */
    public void watch(Collection<Target> targets) {
        List<Runnable> outside = new ArrayList<>();
        synchronized (this) {
            long now = clock.nanoTime();
            Map<String, Target> wanted = new HashMap<>();
            targets.forEach(t -> wanted.put(t.ownerId(), t));
            links.entrySet().removeIf(e -> {
                Link link = e.getValue();
                if (link.dead(now)) {
                    if (link.claimableFrom().isPresent()) {
                        dead.add(link);
                    }
                    retryLater(e.getKey(), link);
                    Connection connection = link.connection;
                    if (connection != null) {
                        outside.add(connection::hangUp);
                    }
                    return true;
                }
                Target target = wanted.get(e.getKey());
                if (target == null) {
                    link.giveUpLocked(now);
                    // Gives up claiming by it: forgotten at once, and the owner is told.
                    Connection connection = link.connection;
                    if (connection != null) {
                        outside.add(connection::goodbye);
                    }
                    return true;
                }
                link.shownBeat = Math.max(link.shownBeat, target.beat());
                return false;
            });
            dead.removeIf(link -> now - link.endedAt >= FORGET_AFTER.toNanos());
            retries.keySet().retainAll(wanted.keySet());
            wanted.forEach((id, target) -> {
                Retry retry = retries.get(id);
                if (links.containsKey(id) || (retry != null && now - retry.notBefore < 0)) {
                    return;
                }
                Link link = new Link(target, nextId++, now);
                links.put(id, link);
                log.debug("Watching {}/{} on port {}", target.node(), target.instance(), target.port());
                outside.add(() -> {
                    Connection connection = connector.connect(target, link);
                    boolean over;
                    synchronized (StandbyLinks.this) {
                        link.connection = connection;
                        over = link.ended;
                    }
                    if (over) {
                        connection.hangUp();
                    }
                });
            });
        }
        outside.forEach(Runnable::run);
    }

    /** A link to the owner {@code ownerId} died: a link that died young makes the next one wait, longer each time. */
    private void retryLater(String ownerId, Link link) {
        if (link.endedAt - link.openedAt >= STABLE.toNanos()) {
            retries.remove(ownerId);
            return;
        }
        Retry retry = retries.computeIfAbsent(ownerId, id -> new Retry());
        retry.deaths++;
        long pause = Math.min(RETRY_MAX.toNanos(), RETRY_FIRST.toNanos() << Math.min(20, retry.deaths - 1));
        retry.notBefore = link.endedAt + pause;
    }

    /**
     * The dead links whose owner's slots this node may claim now: their own wait is over on this node's
     * clock, and the owner's slots were marked ({@link #marked}) since they died, so the claim's filter can
     * judge the same wait by the server's clock. Two clocks, so that either may fail alone: a standby's
     * clock that runs fast cannot end the wait early by itself.
     */
    public synchronized List<Claimable> claimable() {
        long now = clock.nanoTime();
        List<Claimable> ready = new ArrayList<>();
        for (Link link : all()) {
            if (link.usable(now) && link.marked && now - link.claimableFrom().getAsLong() >= 0) {
                ready.add(link.claimable());
            }
        }
        return ready;
    }

    /** The dead links, with a ping received, whose owner's slots this node has not marked yet. */
    public synchronized List<Claimable> unmarked() {
        long now = clock.nanoTime();
        toMark.clear();
        List<Claimable> dying = new ArrayList<>();
        for (Link link : all()) {
            if (link.usable(now) && !link.marked) {
                toMark.add(link);
                dying.add(link.claimable());
            }
        }
        return dying;
    }

    /**
     * This node stamped the slots of {@code dead}'s owner, after {@link #unmarked()} returned it, and the
     * database acknowledged it. The stamp dates the end of the links to that owner that had died by then;
     * one that died since may have had a ping after the stamp was sent, and waits for a stamp of its own.
     */
    public synchronized void marked(Claimable dead) {
        for (Link link : toMark) {
            if (link.target.ownerId().equals(dead.target().ownerId())) {
                link.marked = true;
            }
        }
    }

    private List<Link> all() {
        List<Link> all = new ArrayList<>(dead);
        all.addAll(links.values());
        return all;
    }

    /**
     * Forgets the dead link {@code claimed} came from: nothing more is taken by it. Other dead links to the
     * same owner stay: one that died later may carry a higher beat, and cover slots this one did not.
     */
    public synchronized void forget(Claimable claimed) {
        long now = clock.nanoTime();
        dead.removeIf(link -> link.id == claimed.link());
        links.entrySet().removeIf(e -> e.getValue().id == claimed.link() && e.getValue().dead(now));
    }

    /**
     * How long the server's mark of a slot of {@code owner}'s {@code instance} at {@code beat} must have
     * aged for this node to claim it now by a link, or empty if no link allows it: for the simulation's
     * check that no node can take a slot whose owner's robots run.
     */
    public synchronized Optional<Duration> mayClaim(NodeId owner, String instance, long beat) {
        return claimable().stream().filter(c -> c.target().node().equals(owner) && c.target().instance().equals(instance)
                && beat <= c.maxBeat()).map(Claimable::markAge).min(Duration::compareTo);
    }

    /** When the next dead link becomes claimable, on this node's clock: for waking the poll early. */
    public synchronized Optional<Long> nextClaimable() {
        long now = clock.nanoTime();
        return all().stream().filter(link -> link.dead(now))
                .map(Link::claimableFrom).filter(OptionalLong::isPresent).map(OptionalLong::getAsLong)
                .filter(at -> at - now > 0).min(Long::compare);
    }

    /** Says goodbye on every link: this node stops. */
    public void close() {
        List<Connection> all;
        synchronized (this) {
            long now = clock.nanoTime();
            all = links.values().stream().filter(l -> !l.ended && l.connection != null).map(l -> l.connection).toList();
            links.values().forEach(l -> l.giveUpLocked(now));
            links.clear();
            dead.clear();
            toMark.clear();
            retries.clear();
        }
        all.forEach(Connection::goodbye);
    }

    /** Live links: authenticated, and neither ended nor silent. For metrics and tests. */
    public synchronized int live() {
        long now = clock.nanoTime();
        return (int) links.values().stream().filter(l -> l.authenticated && !l.dead(now)).count();
    }

    /** What the links did so far. */
    public WatchStats stats() {
        return stats;
    }

    @Override
    public String toString() {
        return "StandbyLinks" + links.keySet();
    }
}
