package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fast takeover by watch links, the standby's side: which owners this node watches, and taking their slots once a link
 * died and its wait is over ({@link StandbyLinks}). The owner's side of the rule that makes it safe is
 * {@link OwnerLinks}.
 *
 * <p>A node with room watches the owners whose document was raised within two heartbeats and which take watch links, up
 * to {@link #MAX_LINKS} of them, chosen by a hash of the owner and this node, so that across many standbys each owner
 * is watched by several; and keeps watching one whose document has gone stale while its link lives. Runs on the poll
 * thread only.
 */
final class WatchTakeover {

    private static final Logger log = LoggerFactory.getLogger(WatchTakeover.class);

    /** The most owners one node watches: links cost a ping each a tenth of a watch lease. */
    static final int MAX_LINKS = 16;

    private final NodeConfig config;
    private final MonotonicClock clock;
    private final SlotStore store;
    private final StandbyLinks standbyLinks;
    private final LeaseBook book;
    private final SlotReads reads;
    private final ClaimRound claims;

    WatchTakeover(ProtocolSetup setup, LeaseBook book, SlotReads reads, ClaimRound claims) {
        this.config = setup.config();
        this.clock = setup.clock();
        this.store = setup.store();
        this.standbyLinks = setup.standbyLinks();
        this.book = book;
        this.reads = reads;
        this.claims = claims;
    }

    /** Keeps the links to the owners this node watches, after a poll read the owner documents. */
    void watch() {
        if (!standbyLinks.isOn()) {
            return;
        }
        List<StandbyLinks.Target> targets = new ArrayList<>();
        if (claims.hasRoom()) {
            long fresh = config.timing().heartbeat().multipliedBy(2).toNanos();
            for (SlotStore.OwnerBeat owner : reads.owners()) {
                // A live link outlasts its owner's stale document: the owner may have lost only the database, and
                // the link is what keeps it from pausing its robots by the late mark (OwnerLinks.covered).
                if (owner.node() != null
                        && owner.watch().isOn()
                        && !config.node().equals(owner.node())
                        && (owner.age().toNanos() <= fresh
                                || standbyLinks.watching(OwnerDocRules.ownerId(owner.node(), owner.instance())))) {
                    targets.add(new StandbyLinks.Target(
                            owner.node(),
                            owner.instance(),
                            owner.watch().port(),
                            owner.watch().lease(),
                            owner.beat()));
                }
            }
            targets.sort(Comparator.comparingLong(this::rank));
        }
        standbyLinks.watch(targets.subList(0, Math.min(MAX_LINKS, targets.size())));
    }

    /** A rendezvous rank: the same owner ranks differently on each node. */
    private long rank(StandbyLinks.Target target) {
        CRC32 crc = new CRC32();
        crc.update((config.node() + "|" + target.ownerId()).getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }

    /**
     * Stamps the slots of owners whose link just died with the server's time, then claims the slots of owners whose
     * link died long enough ago by both clocks: each slot read now, still that owner instance's at a beat no higher
     * than the link's, while there is room. A slot of such an owner that carries no stamp was taken by it after the
     * stamp (a take clears it): it is stamped now, and claimed once that stamp aged. Returns the number won.
     */
    int take() throws InterruptedException {
        if (!standbyLinks.isOn()) {
            return 0;
        }
        for (StandbyLinks.Claimable dying : standbyLinks.unmarked()) {
            try {
                store.markLinkEnd(dying.target().node(), dying.target().instance());
                standbyLinks.marked(dying);
            } catch (RuntimeException e) {
                // Tried again at the next tick; without the mark, nothing is claimed by the link.
                log.debug(
                        "Could not mark the slots of {} behind a dead watch link: {}",
                        dying.target().node(),
                        e.toString());
            }
        }
        int won = 0;
        for (StandbyLinks.Claimable dead : standbyLinks.claimable()) {
            if (!claims.hasRoom()) {
                break;
            }
            List<SlotView> slots;
            try {
                slots = store.readHeldBy(dead.target().node());
            } catch (RuntimeException e) {
                log.debug("Could not read the slots of {}: {}", dead.target().node(), e.toString());
                continue;
            }
            boolean pending = false;
            boolean unmarked = false;
            for (SlotView slot : slots) {
                if (!dead.target().instance().equals(slot.instance()) || book.holds(slot.id())) {
                    continue;
                }
                if (slot.beat() > dead.maxBeat()) {
                    // The owner wrote a higher beat since: it outran the link, nothing to take here.
                    continue;
                }
                if (slot.linkEnd() == null) {
                    unmarked = true;
                    pending = true;
                    continue;
                }
                if (!claims.hasRoom() || slot.linkEnd().compareTo(dead.markAge()) <= 0) {
                    // No room, or the server's mark is not old enough yet: the next tick tries again.
                    pending = true;
                    continue;
                }
                if (claims.claimWatched(slot, dead.why(), dead.maxBeat(), dead.markAge())) {
                    standbyLinks.stats().takeovers.incrementAndGet();
                    won++;
                } else {
                    pending = true;
                }
            }
            if (unmarked) {
                try {
                    store.markLinkEndOfUnmarked(
                            dead.target().node(), dead.target().instance());
                } catch (RuntimeException e) {
                    log.debug(
                            "Could not mark the slots {} took since: {}",
                            dead.target().node(),
                            e.toString());
                }
            }
            if (!pending) {
                standbyLinks.forget(dead);
            }
        }
        return won;
    }

    /** Says goodbye on every link: this node stops, and takes nothing more by them. */
    void close() {
        standbyLinks.close();
    }

    /** Whether this node may take {@code slot} now by a watch link (for the simulation's checks). */
    boolean mayTake(SlotView slot) {
        if (!standbyLinks.isOn() || slot.owner() == null || slot.instance() == null || slot.linkEnd() == null) {
            return false;
        }
        return standbyLinks
                .mayClaim(slot.owner(), slot.instance(), slot.beat())
                .filter(wait -> slot.linkEnd().compareTo(wait) > 0)
                .isPresent();
    }

    /** How long until a dead link's wait ends, on this node's clock: when to try {@link #take()} next. */
    OptionalLong nextTake() {
        long now = clock.nanoTime();
        return standbyLinks
                .nextClaimable()
                .map(at -> OptionalLong.of(Math.max(0, at - now)))
                .orElse(OptionalLong.empty());
    }

    /** Its standby links' entries, for the node's meters (all 0 without watch links). */
    void remembered(Map<String, Integer> to) {
        standbyLinks.remembered(to);
    }
}
