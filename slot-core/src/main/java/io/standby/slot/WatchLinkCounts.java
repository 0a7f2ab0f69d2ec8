package io.standby.slot;

/**
 * What a node's watch links do: how many are open now on either side, and what happened on them since the node started.
 * All zero without watch links.
 *
 * @param watchedBy links open from standbys that watch this node
 * @param watching links open to owners this node watches
 * @param ownerEnds links from standbys that ended on this node's side
 * @param standbyEnds links to owners that died on this node's side
 * @param refused handshakes and messages refused: peers without the cluster's key, forged, replayed or out-of-order
 *     messages
 * @param pauses leases paused because a link's deadline passed before a renewal outran it
 * @param takeovers slots this node took over by a dead link
 */
public record WatchLinkCounts(
        int watchedBy, int watching, long ownerEnds, long standbyEnds, long refused, long pauses, long takeovers) {

    /** No watch links. */
    public static final WatchLinkCounts NONE = new WatchLinkCounts(0, 0, 0, 0, 0, 0, 0);
}
