package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fast failover, both sides of it: a standby takes a slot over before its lease runs out when the owner is late by the
 * late mark it wrote and its process is found gone ({@link GoneOwners}); and a node whose own address refuses connects,
 * which other nodes would read as its death, fences every lease at once. With {@link GoneOwners#OFF} it does neither.
 */
final class FastFailover {

    private static final Logger log = LoggerFactory.getLogger(FastFailover.class);

    private final NodeConfig config;
    private final MonotonicClock clock;
    private final GoneOwners gone;
    private final LeaseBook book;
    private final SlotReads reads;
    private final ClaimRound claims;
    private volatile String identityLost;
    /** Whether this node's own address has accepted a connect: only then can a refusal mean it was lost. */
    private volatile boolean listened;

    FastFailover(ProtocolSetup setup, LeaseBook book, SlotReads reads, ClaimRound claims) {
        this.config = setup.config();
        this.clock = setup.clock();
        this.gone = setup.gone();
        this.book = book;
        this.reads = reads;
        this.claims = claims;
    }

    /** Whether this node lost its identity: its address refused connects while it ran. From any thread. */
    boolean identityLost() {
        return identityLost != null;
    }

    /**
     * Whether this node could take {@code slot} over early, by what it has itself observed: the owner is late by its
     * own mark and this node watched that version that long, whatever a probe answers.
     */
    boolean mayTakeEarly(SlotView slot, long now) {
        return gone != GoneOwners.OFF
                && judgeable(slot)
                && slot.isLate()
                && lateFor(slot, now).isPresent();
    }

    /**
     * A slot whose owner's heartbeat is late, by the late mark that owner wrote into it (an owner that wrote none is
     * never taken over early), and whose owner's process {@link GoneOwners} finds gone is claimed at once, before its
     * lease runs out, with a compare-and-set on the exact version read, owner instance included, and late by the
     * server's clock. The owner paused its robots before it got that late, so even a false refusal (a live process
     * behind a REJECT rule) costs a pause, not a second runner. As for a lease, this node must also have seen that
     * version for the whole late mark on its own clock, so a jump of the database's clock cannot make a timely owner
     * look late. The new epoch fences the former owner's writes whatever happens. Owners with a timely heartbeat only
     * teach this node that their address accepts connects (see {@link GoneOwners#learn}): those whose owner document
     * was raised within a heartbeat, by the server's clock, since a poll reads no timely owner's slots. Returns the
     * number won.
     */
    int takeFromGone(List<SlotView> slots) throws InterruptedException {
        if (gone == GoneOwners.OFF) {
            return 0;
        }
        for (SlotStore.OwnerBeat owner : reads.owners()) {
            if (owner.node() != null
                    && !config.node().equals(owner.node())
                    && owner.age().compareTo(config.timing().heartbeat()) <= 0
                    && gone.canJudge(owner.node(), owner.instance(), config.host())) {
                gone.learn(owner.node(), owner.instance());
            }
        }
        long now = clock.nanoTime();
        int won = 0;
        for (SlotView slot : slots) {
            if (!judgeable(slot)
                    || book.holds(slot.id())
                    || !gone.canJudge(slot.owner(), slot.instance(), config.host())) {
                continue;
            }
            if (!slot.isLate()) {
                gone.learn(slot.owner(), slot.instance());
                continue;
            }
            Optional<Observations.Waited> waited = lateFor(slot, now);
            if (waited.isEmpty()) {
                continue;
            }
            if (!claims.hasRoom()) {
                break;
            }
            Optional<String> evidence = gone.gone(slot.owner(), slot.instance());
            if (evidence.isPresent() && claims.claim(slot, Takeover.OWNER_GONE, evidence.get(), waited.get())) {
                won++;
            }
        }
        return won;
    }

    /**
     * Other nodes read a refused connect to this node's address as the death of its process. So if this node's own
     * listener is gone while it lives, it fences every lease at once and claims nothing more: before any standby can
     * see its heartbeat late, let alone probe it twice. Like other nodes, it counts a refusal only once its address has
     * accepted (an application that listens on it itself may start listening after the node). Returns the reason once
     * the identity is lost, else empty. From the fence thread.
     */
    Optional<String> checkIdentity() {
        if (gone == GoneOwners.OFF || identityLost != null) {
            return Optional.ofNullable(identityLost);
        }
        OwnerProbe.Result self = gone.probe(config.node());
        if (self == OwnerProbe.Result.ACCEPTED) {
            listened = true;
        } else if (self == OwnerProbe.Result.REFUSED && listened) {
            identityLost = "this node's address " + config.node() + " refuses connects: its listener is gone";
            log.error(
                    "{}; fencing every slot now, claiming no more and leaving the plans (other nodes would take "
                            + "this node for dead)",
                    identityLost);
            claims.stop();
            book.fenceAll();
        }
        return Optional.ofNullable(identityLost);
    }

    /** Fast failover judges only an owner that wrote a late mark, never this node itself. */
    private boolean judgeable(SlotView slot) {
        return slot.owner() != null
                && slot.instance() != null
                && slot.lateMark() != null
                && !config.node().equals(slot.owner());
    }

    /**
     * This node has itself watched the late owner stand still for the whole late mark, on its own clock: how, if so.
     */
    private Optional<Observations.Waited> lateFor(SlotView slot, long now) {
        return reads.seenFor(slot, now, slot.lateMark());
    }

    /** What its {@link GoneOwners} keeps, for the node's meters. */
    int remembered() {
        return gone.remembered();
    }
}
