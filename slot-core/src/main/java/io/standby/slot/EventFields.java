package io.standby.slot;

/**
 * Field names of the {@code events} collection, in one place: {@code {_id, time, type, slot, epoch, node}}; a robot's
 * events add {@code robot} and {@code detail} (a document, or null); a slot taken from another owner adds {@code from},
 * {@code heartbeat} (that owner's last, unless it had released) and, for a took-over, {@code how} and {@code evidence};
 * a loss other than a release adds {@code reason}. {@code time} is the server's. Public, as {@link SlotFields} is.
 */
public final class EventFields {

    public static final String COLLECTION = "events";

    public static final String ID = "_id";
    /** When the event was written, by the server's clock. */
    public static final String TIME = "time";
    /** What happened: {@code claimed}, {@code took-over}, {@code lost}, {@code started}, ... */
    public static final String TYPE = "type";

    public static final String SLOT = "slot";
    public static final String EPOCH = "epoch";
    /** The node, {@code ip:port}, that recorded it. */
    public static final String NODE = "node";
    /** The robot, for a robot's events. */
    public static final String ROBOT = "robot";
    /** A robot's event's details ({@code error}, {@code to}, ...), or null. */
    public static final String DETAIL = "detail";
    /** The owner a slot was taken from, {@code ip:port}. */
    public static final String FROM = "from";
    /** That owner's last heartbeat, by the server's clock. */
    public static final String HEARTBEAT = "heartbeat";
    /** How a took-over came about: {@code link}, {@code owner-gone} or {@code expired}. */
    public static final String HOW = "how";
    /** What a took-over relied on, for a reader. */
    public static final String EVIDENCE = "evidence";
    /** Why a lease was lost, for a loss other than a release. */
    public static final String REASON = "reason";

    private EventFields() {}
}
