package io.standby.slot;

/**
 * Field names of the {@code nodes} collection, the node registry, in one place: {@code {_id: "ip:port", ip, port,
 * instance, host, state, slots, held, maxSlots, robots: {running, failed}, load: {cpu, memory, score}, version,
 * interval, types, started, time}}, and {@code drain} (the server's time of an operator's request) until the node's
 * next process starts. {@code time} and {@code started} are stamped with the server's clock. Public, as
 * {@link SlotFields} is: they are what an operator sees in mongosh.
 */
public final class NodeFields {

    public static final String COLLECTION = "nodes";

    /** {@code ip:port}. */
    public static final String ID = "_id";

    public static final String IP = "ip";
    public static final String PORT = "port";
    public static final String INSTANCE = "instance";
    public static final String HOST = "host";
    /** A {@link NodeState} name. */
    public static final String STATE = "state";
    /** The ids of the slots the node holds. */
    public static final String SLOTS = "slots";
    /** How many slots it holds, for the claim plans, which read it without the list. */
    public static final String HELD = "held";

    public static final String MAX_SLOTS = "maxSlots";
    /** {@code {running, failed}}: how many of its robots run and how many failed. */
    public static final String ROBOTS = "robots";

    public static final String ROBOTS_RUNNING = "running";
    public static final String ROBOTS_FAILED = "failed";
    /** {@code {cpu, memory, score}}: fractions of the machine, and the load score that orders claims. */
    public static final String LOAD = "load";

    public static final String LOAD_CPU = "cpu";
    public static final String LOAD_MEMORY = "memory";
    public static final String LOAD_SCORE = "score";
    public static final String VERSION = "version";
    /** How often the node writes this document, in milliseconds. */
    public static final String INTERVAL = "interval";
    /** The robot types the node can run. */
    public static final String TYPES = "types";
    /** When this process first wrote the document, by the server's clock. */
    public static final String STARTED = "started";
    /** When the node last wrote the document, by the server's clock. */
    public static final String TIME = "time";
    /** An operator's drain request: the server's time it was made. */
    public static final String DRAIN = "drain";

    private NodeFields() {}
}
