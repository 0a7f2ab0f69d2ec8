package io.standby.bench.chaos;

/**
 * One fault as it happened: its kind, its target (a node, a slot or a robot), and its wall-clock start
 * and end in ms (the end is when it was undone: the node restarted or continued, the command returned;
 * for a cut, read just before the link resumed, so the link was frozen through all of {@code [start, end]}).
 *
 * @param pid for a fault on a node, the pid of its process when the fault began; 0 otherwise
 * @param alive for a cut, whether that process still ran when the link resumed
 */
record Fault(int number, Kind kind, String target, long start, long end, String detail, long pid, boolean alive) {

    /** The kinds of fault, with their weight in the random choice. */
    enum Kind {
        KILL9(3), SIGSTOP(3), SIGTERM(2), DB_RESTART(1), CUT(3), RELEASE(2), MOVE(2), RM_ADD(2), DRAIN(2), STOP_START(2);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }

        /** Whether the target is a node (whose robots are the ones affected). */
        boolean onNode() {
            return this == KILL9 || this == SIGSTOP || this == SIGTERM || this == CUT || this == DRAIN;
        }

        String label() {
            return name().toLowerCase().replace('_', '-');
        }
    }

    String line(long origin) {
        return String.format("  #%-3d %7.1f s  %-10s %-8s %s", number, (start - origin) / 1000.0, kind.label(), target, detail);
    }
}
