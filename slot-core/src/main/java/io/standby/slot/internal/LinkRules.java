package io.standby.slot.internal;

import static io.standby.slot.SlotFields.BEAT;
import static io.standby.slot.SlotFields.INSTANCE;
import static io.standby.slot.SlotFields.IP;
import static io.standby.slot.SlotFields.LINK_END;
import static io.standby.slot.SlotFields.PORT;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The filters and updates of a takeover by watch link, written once, as {@link SlotRules} writes the rest: a standby
 * whose link to an owner died marks that owner's slots with the server's time, and claims one only once the mark is a
 * watch lease old by the server's clock, at a beat the link had seen.
 */
public final class LinkRules {

    private LinkRules() {}

    /**
     * A takeover by a watch link that died: the slot still its owner instance's, at the epoch and heartbeat seen, and
     * at a beat no higher than the highest sent on the link (see {@link OwnerLinks}).
     */
    public static Bson claimFromWatchedFilter(SlotView seen, long maxBeat, Duration wait) {
        return SlotRules.ownedVersion(seen)
                .append(BEAT, new Document("$lte", maxBeat))
                // A mark must be there: a missing field added to a number is null, which sorts below any date.
                .append(LINK_END, new Document("$gt", new Date(0)))
                .append(
                        "$expr",
                        new Document(
                                "$lt",
                                List.of(
                                        new Document("$add", Arrays.asList("$" + LINK_END, wait.toMillis())),
                                        "$$NOW")));
    }

    /** Every slot of one owner instance, for a standby's mark that its watch link to it died. */
    public static Bson markLinkEndFilter(NodeId node, String instance) {
        return new Document(IP, node.ip()).append(PORT, node.port()).append(INSTANCE, instance);
    }

    /**
     * The slots of one owner instance that carry no mark: taken since a standby's mark (see
     * {@link SlotStore#markLinkEndOfUnmarked}).
     */
    public static Bson markLinkEndOfUnmarkedFilter(NodeId node, String instance) {
        return new Document(IP, node.ip())
                .append(PORT, node.port())
                .append(INSTANCE, instance)
                .append(LINK_END, null);
    }

    /** The server's time as the moment a standby found its watch link dead; a later mark only moves it on. */
    public static Bson markLinkEndUpdate() {
        return new Document("$currentDate", new Document(LINK_END, true));
    }
}
