package io.standby.slot.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a node's watch links did, counted where it happens: links that ended on either side, messages and handshakes
 * refused (a peer without the cluster's key, a forged or replayed message), pauses a link's deadline caused, and slots
 * taken over by a dead link. Thread-safe; the counts only rise.
 */
public final class WatchStats {

    final AtomicLong ownerEnds = new AtomicLong();
    final AtomicLong standbyEnds = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong pauses = new AtomicLong();
    final AtomicLong takeovers = new AtomicLong();
    final AtomicLong tooSlow = new AtomicLong();

    /** Links from standbys that ended on this owner's side (an end of stream, an error, no acknowledgement). */
    public long ownerEnds() {
        return ownerEnds.get();
    }

    /** Links to owners that died on this standby's side. */
    public long standbyEnds() {
        return standbyEnds.get();
    }

    /**
     * Handshakes and messages refused: a peer that does not hold the cluster's key, or a message forged, replayed or
     * out of order.
     */
    public long refused() {
        return refused.get();
    }

    /** Leases paused because a link's deadline passed before a renewal outran it. */
    public long pauses() {
        return pauses.get();
    }

    /** Links this owner refused because the standby's round trip in the handshake was above half a watch lease. */
    public long tooSlow() {
        return tooSlow.get();
    }

    /** Slots this node took over by a dead link. */
    public long takeovers() {
        return takeovers.get();
    }
}
