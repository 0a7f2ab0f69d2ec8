package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby's side of the watch links (fast takeover): a connection to each owner process it watches, and when it may
 * take that owner's slots after the connection ended. See {@link OwnerLinks} for the owner's side and the argument.
 *
 * <p>For each link it records the highest beat received and when it received the last ping it acknowledged, on its own
 * clock. The watch lease comes from the owner's document, which only a node with write access to the database can
 * write, never from the wire. The link is dead once it ended (end of stream, an error, a refused message) or has been
 * silent for half the watch lease; a dead link never comes back (a new one is opened). From {@code 1.1 × watch lease}
 * after that last acknowledged ping's receipt, the owner has paused every lease whose last acknowledged write carried a
 * beat no higher than those received, unless a higher beat has landed; so a claim of a slot still at such a beat, owner
 * and instance as on the link, is safe. Past {@link #FORGET_AFTER} from its death, a dead link is forgotten: the owner
 * forgets it only later.
 *
 * <p>A ping whose beat is lower than one received before on the link, or far above the beat the owner's document
 * showed, is refused and counted, and the link ends: the transport authenticates every message with the cluster's key,
 * so such a ping means a bug or a forgery, and a link is only as good as its highest beat. An owner whose links keep
 * dying young (a slow or flaky path, a round trip above half the watch lease) is linked again only after a pause that
 * doubles, from a second up to a minute: each death costs the owner a renewal.
 *
 * <p>The poll thread opens and forgets links and asks what may be taken; the transport's threads report what arrives.
 * Nothing here waits on the network.
 */
public final class StandbyLinks {

    private static final Logger log = LoggerFactory.getLogger(StandbyLinks.class);

    /** How long after its death a link may still be claimed by; the owner keeps it twice as long. */
    static final Duration FORGET_AFTER = Duration.ofSeconds(30);
    /** How long a connect and the handshake may take before the link counts as dead. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /**
     * How far above the beat the owner's document last showed a ping's beat may be. An owner announces each beat before
     * the write that carries it, and writes a few a heartbeat, so a real ping is a handful above what this node read; a
     * million is years of writes.
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
         * Starts connecting to {@code target}'s watch port, without waiting; what arrives goes to {@code link}. Returns
         * the connection, whose {@link Connection#goodbye()} ends it for good.
         */
        Connection connect(Target target, StandbyLink link);
    }

    /** A standby's end of one link, as the transport sends on it. Neither method waits on the network. */
    public interface Connection {
        /** Says goodbye (this node gives up claiming by the link) and closes. */
        void goodbye();

        /** Closes without a goodbye: this node counts the link dead, and may claim by it. */
        default void hangUp() {}
    }

    /** Never connects: no owner is ever watched. */
    public static final Connector NONE = (target, link) -> () -> {};

    /**
     * An owner process to watch, as its owner document shows it: its address, its instance, where it listens for
     * watchers, its watch lease, and the beat the document showed.
     */
    public record Target(NodeId node, String instance, int port, Duration watchLease, long beat) {

        /** The owner document's id: one link per owner process. */
        String ownerId() {
            return OwnerDocRules.ownerId(node, instance);
        }
    }

    /**
     * A dead link this node may claim by: the owner, the highest beat a claim may match, how old, by the server's
     * clock, the mark of the link's end must be ({@link SlotStore#markLinkEnd}), and which link.
     */
    public record Claimable(Target target, long maxBeat, Duration markAge, String why, long link) {}

    /** When this node links again to an owner whose links died young, and how many did in a row. */
    private static final class Retry {
        int deaths;
        long notBefore;
    }

    final MonotonicClock clock;
    private final Connector connector;
    final WatchStats stats;
    /** The current link to each owner process watched, by owner document id. */
    private final Map<String, StandbyLink> links = new HashMap<>();
    /** Dead links a claim may still be made by, until forgotten. */
    private final List<StandbyLink> dead = new ArrayList<>();
    /** The links {@link #unmarked()} last returned: a stamp written after it dates the end of these only. */
    private final List<StandbyLink> toMark = new ArrayList<>();
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
     * Keeps a live link to each of {@code targets} (owners this node would take from), and says goodbye to the live
     * links of owners no longer among them. A dead link is kept, for claims, until forgotten; an owner still among the
     * targets gets a new link beside it, since a live owner's link may break for many reasons, but only after a pause
     * if its links keep dying young.
     */
    public void watch(Collection<Target> targets) {
        List<Runnable> outside = new ArrayList<>();
        synchronized (this) {
            long now = clock.nanoTime();
            Map<String, Target> wanted = new HashMap<>();
            targets.forEach(t -> wanted.put(t.ownerId(), t));
            links.entrySet().removeIf(e -> {
                StandbyLink link = e.getValue();
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
                StandbyLink link = new StandbyLink(this, target, nextId++, now);
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
    private void retryLater(String ownerId, StandbyLink link) {
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
     * The dead links whose owner's slots this node may claim now: their own wait is over on this node's clock, and the
     * owner's slots were marked ({@link #marked}) since they died, so the claim's filter can judge the same wait by the
     * server's clock. Two clocks, so that either may fail alone: a standby's clock that runs fast cannot end the wait
     * early by itself.
     */
    public synchronized List<Claimable> claimable() {
        long now = clock.nanoTime();
        List<Claimable> ready = new ArrayList<>();
        for (StandbyLink link : all()) {
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
        for (StandbyLink link : all()) {
            if (link.usable(now) && !link.marked) {
                toMark.add(link);
                dying.add(link.claimable());
            }
        }
        return dying;
    }

    /**
     * This node stamped the slots of {@code dead}'s owner, after {@link #unmarked()} returned it, and the database
     * acknowledged it. The stamp dates the end of the links to that owner that had died by then; one that died since
     * may have had a ping after the stamp was sent, and waits for a stamp of its own.
     */
    public synchronized void marked(Claimable dead) {
        for (StandbyLink link : toMark) {
            if (link.target.ownerId().equals(dead.target().ownerId())) {
                link.marked = true;
            }
        }
    }

    private List<StandbyLink> all() {
        List<StandbyLink> all = new ArrayList<>(dead);
        all.addAll(links.values());
        return all;
    }

    /**
     * Forgets the dead link {@code claimed} came from: nothing more is taken by it. Other dead links to the same owner
     * stay: one that died later may carry a higher beat, and cover slots this one did not.
     */
    public synchronized void forget(Claimable claimed) {
        long now = clock.nanoTime();
        dead.removeIf(link -> link.id == claimed.link());
        links.entrySet()
                .removeIf(e -> e.getValue().id == claimed.link() && e.getValue().dead(now));
    }

    /**
     * How long the server's mark of a slot of {@code owner}'s {@code instance} at {@code beat} must have aged for this
     * node to claim it now by a link, or empty if no link allows it: for the simulation's check that no node can take a
     * slot whose owner's robots run.
     */
    public synchronized Optional<Duration> mayClaim(NodeId owner, String instance, long beat) {
        return claimable().stream()
                .filter(c -> c.target().node().equals(owner)
                        && c.target().instance().equals(instance)
                        && beat <= c.maxBeat())
                .map(Claimable::markAge)
                .min(Duration::compareTo);
    }

    /** When the next dead link becomes claimable, on this node's clock: for waking the poll early. */
    public synchronized Optional<Long> nextClaimable() {
        long now = clock.nanoTime();
        return all().stream()
                .filter(link -> link.dead(now))
                .map(StandbyLink::claimableFrom)
                .filter(OptionalLong::isPresent)
                .map(OptionalLong::getAsLong)
                .filter(at -> at - now > 0)
                .min(Long::compare);
    }

    /** Says goodbye on every link: this node stops. */
    public void close() {
        List<Connection> all;
        synchronized (this) {
            long now = clock.nanoTime();
            all = links.values().stream()
                    .filter(l -> !l.ended && l.connection != null)
                    .map(l -> l.connection)
                    .toList();
            links.values().forEach(l -> l.giveUpLocked(now));
            links.clear();
            dead.clear();
            toMark.clear();
            retries.clear();
        }
        all.forEach(Connection::goodbye);
    }

    /**
     * Whether this node holds a live link to the owner process {@code ownerId}: authenticated, neither ended nor
     * silent.
     */
    public synchronized boolean watching(String ownerId) {
        StandbyLink link = links.get(ownerId);
        return link != null && link.authenticated && !link.dead(clock.nanoTime());
    }

    /** Live links: authenticated, and neither ended nor silent. For metrics and tests. */
    public synchronized int live() {
        long now = clock.nanoTime();
        return (int) links.values().stream()
                .filter(l -> l.authenticated && !l.dead(now))
                .count();
    }

    /** What the links did so far. */
    public WatchStats stats() {
        return stats;
    }

    @Override
    public String toString() {
        return "StandbyLinks" + links.keySet();
    }

    /** The links kept (live or dying), dead ones kept for claims, and retry marks, for the node's meters. */
    public synchronized void remembered(Map<String, Integer> to) {
        to.put("standby_links", links.size());
        to.put("standby_dead_links", dead.size());
        to.put("standby_link_retries", retries.size());
    }
}
