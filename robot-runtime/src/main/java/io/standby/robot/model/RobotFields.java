package io.standby.robot.model;

/**
 * Field names of the robot document, in one place: the store's filters and updates are written with them, and so is
 * anything that reads the documents, such as the {@code standby-morphia} entities. Renaming one is a change of the
 * stored format.
 */
public final class RobotFields {

    public static final String COLLECTION = "robots";

    public static final String ID = "_id";
    public static final String INCARNATION = "incarnation";
    public static final String TYPE = "type";
    public static final String SLOT = "slotId";
    public static final String PRIORITY = "priority";
    public static final String WEIGHT = "weight";
    public static final String CONFIG = "config";
    public static final String DESIRED = "desired";
    public static final String STATE = "state";
    public static final String NODE = "node";
    public static final String CONTEXT = "context";
    /** The sequence number of the checkpoint that wrote {@code context}, under the current token. */
    public static final String SEQ = "seq";
    /** The sequence number of the last status write, under the current token. */
    public static final String STATUS_SEQ = "statusSeq";

    public static final String EPOCH = "epoch";
    /**
     * How many times the robot was fenced: raised by every fence, kept by moves, so that a token never comes back, even
     * for a robot that leaves a slot and returns under the same lease.
     */
    public static final String FENCES = "fences";

    public static final String RESTARTS = "restarts";
    public static final String LAST_ERROR = "lastError";
    public static final String TARGET = "target";
    /** The last operator change: {@code {slot, at}}, so a node can watch only its own slots' robots. */
    public static final String REQUEST = "request";
    /** In {@code request}: the robot's slot when the operator changed it. */
    public static final String REQUEST_SLOT = "slot";
    /** In {@code request}: when, by the operator's clock; a new value each time, so that a change stream reports it. */
    public static final String REQUEST_AT = "at";

    public static final String UPDATED = "updated";

    private RobotFields() {}
}
