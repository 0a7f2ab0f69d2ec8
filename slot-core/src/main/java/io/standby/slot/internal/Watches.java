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
 * when it may take that owner's slots after the connection ended. See {@link Watchers} for the owner's
 * side and the argument.
 *
 * <p>For each link it records the highest beat received and when it received the last ping it
 * acknowledged, on its own clock. The link is dead once it ended (end of stream, an error) or has been
 * silent for half the owner's watch lease; a dead link never comes back (a new one is opened). From
 * {@code 1.1 × watch lease} after that last acknowledged ping's receipt, the owner has paused every lease
 * whose last acknowledged write carried a beat no higher than those received, unless a higher beat has
 * landed; so a claim of a slot still at such a beat, owner and instance as on the link, is safe. Past
 * {@link #FORGET_AFTER} from its death, a dead link is forgotten: the owner forgets it only later.
 *
 * <p>The poll thread opens and forgets links and asks what may be taken; the transport's threads report
 * what arrives.
 */
public final class Watches {

    private static final Logger log = LoggerFactory.getLogger(Watches.class);

    /** How long after its death a link may still be claimed by; the owner keeps it twice as long. */
    static final Duration FORGET_AFTER = Duration.ofSeconds(30);

    /** Opens connections to owners; {@link #NONE} never does. */
    public interface Connector {
        /**
         * Starts connecting to {@code target}'s watch port; what arrives goes to {@code link}. Returns the
         * connection, whose {@link Connection#goodbye()} ends it for good.
         */
        Connection connect(Target target, Link link);
    }

    /** A standby's end of one link, as the transport sends on it. */
    public interface Connection {
        /** Says goodbye (this node gives up claiming by the link) and closes. */
        void goodbye();
    }

    /** Never connects: no owner is ever watched. */
    public static final Connector NONE = (target, link) -> () -> { };

    /** An owner process to watch: its address, its instance, and where it listens for watchers. */
    public record Target(NodeId node, String instance, int port) {
    }

    /** One link: what arrived on it. */
    public final class Link {
        private final Target target;
        private Connection connection;
        private long watchLeaseNanos = -1;
        private long maxBeat = -1;
        private long lastReceived = Long.MIN_VALUE;
        private final long openedAt;
        private boolean ended;
        private long endedAt;
        private String why;
        /** Whether this node has stamped the owner's slots with the server's time since this link died. */
        private boolean marked;

        private Link(Target target, long now) {
            this.target = target;
            this.openedAt = now;
        }

        /** The owner's hello: false (and the link ends) if it is another instance than the one watched. */
        public boolean hello(String instance, Duration watchLease) {
            synchronized (Watches.this) {
                if (!target.instance().equals(instance) || watchLease.isNegative() || watchLease.isZero()) {
                    endLocked(clock.nanoTime(), "the owner at " + target.node() + " is instance " + instance + ", not " + target.instance());
                    return false;
                }
                watchLeaseNanos = watchLease.toNanos();
                return true;
            }
        }

        /**
         * A ping arrived. Returns true if the transport must acknowledge it: the receipt is recorded first,
         * so the acknowledgement never extends the owner's deadline beyond what this side counts from.
         */
        public boolean pinged(long beat) {
            synchronized (Watches.this) {
                long now = clock.nanoTime();
                if (watchLeaseNanos < 0 || dead(now)) {
                    return false;
                }
                if (lastReceived == Long.MIN_VALUE) {
                    log.info("Watching {} (instance {}): its slots are taken about {} ms after this link dies", target.node(),
                            target.instance(), watchLeaseNanos * 11 / 10 / 1_000_000);
                }
                maxBeat = Math.max(maxBeat, beat);
                lastReceived = now;
                return true;
            }
        }

        /** The connection ended: end of stream, an error, a refused connect. */
        public void ended(String reason) {
            synchronized (Watches.this) {
                endLocked(clock.nanoTime(), reason);
            }
        }

        private void endLocked(long now, String reason) {
            if (!ended) {
                ended = true;
                endedAt = now;
                why = reason;
            }
        }

        /** Dead: ended, or silent for half the watch lease since the last ping (or the open). */
        private boolean dead(long now) {
            if (!ended && watchLeaseNanos > 0) {
                long since = lastReceived == Long.MIN_VALUE ? openedAt : lastReceived;
                if (now - since >= watchLeaseNanos / 2) {
                    endLocked(now, "silent for " + Duration.ofNanos(now - since).toMillis() + " ms");
                }
            } else if (!ended && now - openedAt >= CONNECT_TIMEOUT.toNanos()) {
                endLocked(now, "no hello within " + CONNECT_TIMEOUT.toMillis() + " ms");
            }
            return ended;
        }

        /** From when a claim by this link is safe, on this node's clock; empty if never (no ping received). */
        private OptionalLong claimableFrom() {
            if (lastReceived == Long.MIN_VALUE || watchLeaseNanos <= 0) {
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
            return new Claimable(target, maxBeat, Duration.ofNanos(waitNanos()), "its watch link " + why);
        }
    }

    /**
     * A dead link this node may claim by: the owner, the highest beat a claim may match, and how old, by the
     * server's clock, the mark of the link's end must be ({@link SlotStore#markLinkEnd}).
     */
    public record Claimable(Target target, long maxBeat, Duration markAge, String why) {
    }

    /** How long a connect and hello may take before the link counts as dead. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final MonotonicClock clock;
    private final Connector connector;
    /** The current link to each owner process watched, by owner document id. */
    private final Map<String, Link> links = new HashMap<>();
    /** Dead links a claim may still be made by, until forgotten. */
    private final List<Link> dead = new ArrayList<>();
    /** The links {@link #unmarked()} last returned: a stamp written after it dates the end of these only. */
    private final List<Link> toMark = new ArrayList<>();

    public Watches(MonotonicClock clock, Connector connector) {
        this.clock = clock;
        this.connector = connector;
    }

    /** Whether watch links are on. */
    public boolean on() {
        return connector != NONE;
    }

    /**
     * Keeps a live link to each of {@code targets} (owners this node would take from), and says goodbye to
     * the live links of owners no longer among them. A dead link is kept, for claims, until forgotten; an
     * owner still among the targets gets a new link beside it, since a live owner's link may break for
     * many reasons.
     */
    public void watch(Collection<Target> targets) {
        List<Runnable> outside = new ArrayList<>();
        synchronized (this) {
            long now = clock.nanoTime();
            Map<String, Target> wanted = new HashMap<>();
            targets.forEach(t -> wanted.put(SlotRules.ownerId(t.node(), t.instance()), t));
            links.entrySet().removeIf(e -> {
                Link link = e.getValue();
                if (link.dead(now)) {
                    if (link.claimableFrom().isPresent()) {
                        dead.add(link);
                    }
                    return true;
                }
                if (!wanted.containsKey(e.getKey())) {
                    link.endLocked(now, "no longer watched");
                    // Gives up claiming by it: forgotten at once, and the owner is told.
                    Connection connection = link.connection;
                    if (connection != null) {
                        outside.add(connection::goodbye);
                    }
                    return true;
                }
                return false;
            });
            dead.removeIf(link -> now - link.endedAt >= FORGET_AFTER.toNanos());
            wanted.forEach((id, target) -> {
                if (!links.containsKey(id)) {
                    Link link = new Link(target, now);
                    links.put(id, link);
                    log.debug("Watching {}/{} on port {}", target.node(), target.instance(), target.port());
                    outside.add(() -> {
                        Connection connection = connector.connect(target, link);
                        synchronized (Watches.this) {
                            link.connection = connection;
                        }
                    });
                }
            });
        }
        outside.forEach(Runnable::run);
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
            if (link.target.equals(dead.target())) {
                link.marked = true;
            }
        }
    }

    private List<Link> all() {
        List<Link> all = new ArrayList<>(dead);
        all.addAll(links.values());
        return all;
    }

    /** Forgets the dead links to {@code claimed}'s owner: nothing more is taken by them. */
    public synchronized void forget(Claimable claimed) {
        long now = clock.nanoTime();
        dead.removeIf(link -> link.target.equals(claimed.target()));
        links.entrySet().removeIf(e -> e.getValue().target.equals(claimed.target()) && e.getValue().dead(now));
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
            all = links.values().stream().filter(l -> !l.ended && l.connection != null).map(l -> l.connection).toList();
            links.clear();
            dead.clear();
            toMark.clear();
        }
        all.forEach(Connection::goodbye);
    }

    /** Live links, for metrics and tests. */
    public synchronized int live() {
        long now = clock.nanoTime();
        return (int) links.values().stream().filter(l -> !l.dead(now)).count();
    }

    @Override
    public String toString() {
        return "Watches" + links.keySet();
    }
}
