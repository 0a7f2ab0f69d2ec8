package io.standby.bench.chaos;

/**
 * One fault as it happened: its kind, its target (a node, a slot or a robot), and its wall-clock start and end in ms
 * (the end is when it was undone: the node restarted or continued, the command returned; for a cut, read just before
 * the link resumed, so the link was frozen through all of {@code [start, end]}; for a SIGSTOP or a freeze, read just
 * before {@code kill -CONT} was sent, so the process was stopped through all of it).
 *
 * @param pid for a fault on a node, the pid of its process when the fault began; 0 otherwise
 * @param alive for a cut, whether that process still ran when the link resumed
 * @param identity for a fault on a node, its {@code ip:port} when the fault began (what other nodes call it, and what a
 *     takeover from it names); null otherwise
 * @param woke for a SIGSTOP or a freeze, read just after {@code kill -CONT} returned; 0 otherwise
 * @param links for a SIGSTOP or a freeze with watch links on, how many links from standbys the node had open when its
 *     {@code /metrics} were read just before the SIGSTOP; for a cut, 1 if a slot the node held showed its late mark
 *     once the link froze, 0 if none did (a watch link covered it: it stops at its lease's deadline instead); -1 if
 *     unknown or links off
 */
record Fault(
        int number,
        Kind kind,
        String target,
        long start,
        long end,
        String detail,
        long pid,
        boolean alive,
        String identity,
        long woke,
        int links) {

    /** A fault on no node: a slot, a robot or the database. */
    static Fault offNode(int number, Kind kind, String target, long start, long end, String detail) {
        return new Fault(number, kind, target, start, end, detail, 0, false, null, 0, -1);
    }

    /**
     * The kinds of fault, with their weight in the random choice. {@link #FREEZE} is drawn only with watch links on
     * (its weight is 0 otherwise, so a seed draws the same schedule as before it existed).
     */
    enum Kind {
        KILL9(3),
        SIGSTOP(3),
        SIGTERM(2),
        DB_RESTART(1),
        CUT(3),
        RELEASE(2),
        MOVE(2),
        RM_ADD(2),
        DRAIN(2),
        STOP_START(2),
        /**
         * A short SIGSTOP of a slot's owner, 1.2 to 2.4 watch leases: past its links' deadline and mostly before its
         * late mark, around the takeover by a link (about 1.6 watch leases).
         */
        FREEZE(3);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }

        /** Its weight in a run with or without watch links. */
        int weight(boolean watchLinks) {
            return this == FREEZE && !watchLinks ? 0 : weight;
        }

        /** Whether the target is a node (whose robots are the ones affected). */
        boolean onNode() {
            return this == KILL9
                    || this == SIGSTOP
                    || this == SIGTERM
                    || this == CUT
                    || this == DRAIN
                    || this == FREEZE;
        }

        /** A SIGSTOP, long or short: judged by the verdict's link-deadline row. */
        boolean stops() {
            return this == SIGSTOP || this == FREEZE;
        }

        String label() {
            return name().toLowerCase().replace('_', '-');
        }
    }

    Fault withDetail(String prefix) {
        return new Fault(number, kind, target, start, end, prefix + detail, pid, alive, identity, woke, links);
    }

    String line(long origin) {
        return String.format(
                "  #%-3d %7.1f s  %-10s %-8s %s", number, (start - origin) / 1000.0, kind.label(), target, detail);
    }
}
