package io.standby.bench.chaos;

/**
 * What a soak measures and how each measure is judged. Per node: {@link #HEAP} (used heap right after a full GC that
 * the sampler forces with {@code jcmd <pid> GC.run}; without it, Micrometer's {@code jvm_gc_live_data_size_bytes}, the
 * old generation after the last major GC, or the heap in use before a node's first), {@link #RSS}, {@link #THREADS},
 * {@link #FDS}, {@link #COMMANDS} (database commands per second: the delta of the node's
 * {@code mongodb_driver_commands_seconds_count} since the previous round, none in a process's first round, but for its
 * robots' writes), {@link #ROBOT_WRITES} (those writes, {@code update robots}: the bulk writes of checkpoints and
 * status changes; not judged, since how many checkpoints one bulk carries depends on how busy the machine is: an owner
 * of 10 robots that checkpoint every second sent 7 to 19 commands a second in a 5-minute soak with no fault in
 * between), and {@code map:NAME}, the entries of one of the node's own maps
 * ({@code standby_node_remembered{map=NAME}}). Per cluster: {@code docs:COLLECTION}, a collection's documents.
 *
 * <p>A per-node measure is judged on the mean over the nodes sampled in a round, not on one node: which node owns slots
 * (and runs their robots, and sends their checkpoints) changes with the churn, and the mean over all of them is the
 * cluster's total over the node count, which does not. It grows when the last window's average is more than
 * {@link #LIMIT} above the first's plus the measure's {@link #slack} (a thread or two, an entry or two: a small count's
 * step is not a leak). A window's figure is the average of its rounds, but for commands per second their median
 * ({@link #median}).
 *
 * @param name as in the CSV
 * @param slack the absolute growth allowed on top of the percentage
 * @param judged false for a figure that grows by design in a soak (the {@code events} history, kept 7 days, capped on
 *     MongoDB) or that follows the machine's load (the robots' writes)
 */
record SoakMeasure(String name, String unit, double slack, boolean judged) {

    /** The growth allowed from the first window to the last: +10 %. */
    static final double LIMIT = 0.10;

    static final String HEAP = "heap_mb";
    static final String RSS = "rss_mb";
    static final String THREADS = "threads";
    static final String FDS = "fds";
    static final String COMMANDS = "commands_per_s";
    static final String ROBOT_WRITES = "robot_writes_per_s";
    static final String MAP = "map:";
    static final String DOCS = "docs:";

    /** The collections counted each round, in the database the nodes run on. */
    static final java.util.List<String> COLLECTIONS =
            java.util.List.of("events", "nodes", "owners", "robots", "robotIds", "slots");

    static SoakMeasure of(String name) {
        return switch (name) {
            case HEAP -> new SoakMeasure(name, "MB", 0, true);
            case RSS -> new SoakMeasure(name, "MB", 0, true);
            case THREADS -> new SoakMeasure(name, "", 2, true);
            case FDS -> new SoakMeasure(name, "", 4, true);
            case COMMANDS -> new SoakMeasure(name, "/s", 0, true);
            case ROBOT_WRITES -> new SoakMeasure(name, "/s", 0, false);
            case "docs:events" -> new SoakMeasure(name, "", 0, false);
            default -> new SoakMeasure(name, "", 2, true);
        };
    }

    /**
     * Whether a window is judged by its median round rather than its average: commands per second, whose rounds with a
     * takeover (the new owner fences and loads the slot's robots, standbys read more) are bursts, not a trend.
     */
    boolean median() {
        return name.equals(COMMANDS) || name.equals(ROBOT_WRITES);
    }

    /** Why a measure is not judged, for the table. */
    String why() {
        return name.equals(ROBOT_WRITES)
                ? "follows the machine's load (checkpoints per bulk)"
                : "grows by design (7-day retention)";
    }

    /** A node's figure (averaged over the nodes of a round), not the cluster's. */
    boolean perNode() {
        return !name.startsWith(DOCS);
    }

    /** Order of the table and the plot: the process's figures, its maps, then the collections. */
    int rank() {
        return switch (name) {
            case HEAP -> 0;
            case RSS -> 1;
            case THREADS -> 2;
            case FDS -> 3;
            case COMMANDS -> 4;
            case ROBOT_WRITES -> 5;
            default -> name.startsWith(MAP) ? 6 : 7;
        };
    }
}
