package io.standby.bench.chaos;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Everything the verdict judges, read after the quiet period: the input, the outputs, the recorded runs and writes,
 * each robot's final document, and when each robot was removed and added again.
 *
 * @param input seq to amount, as the producer's acknowledged inserts left it
 * @param outputs every output document, per robot
 * @param records every recorded run start and checkpoint call, from every node process
 * @param ends each robot's final state and context offset; a robot missing here is missing in the database
 * @param robots the robots that should exist
 * @param renewals rm+add of a robot: from just before the rm to just after the add succeeded
 * @param cuts the links frozen, each with the node process it cut off
 * @param lateMark the late mark the nodes write into their slots (2 heartbeats), in ms
 * @param links what the link-deadline row judges: the watch lease, the SIGSTOPs, the resumes and takeovers
 * @param slotDocuments the ids of the slots collection at the end, as {@code db.slots.find()} shows them
 */
public record Facts(
        SortedMap<Long, Long> input,
        Map<String, List<Output>> outputs,
        List<Checkpoint> records,
        Map<String, End> ends,
        List<String> robots,
        List<Renewal> renewals,
        List<Cut> cuts,
        long lateMark,
        Links links,
        List<Object> slotDocuments) {

    /** One output document of the ledger. */
    public record Output(long seq, Long amount, Long balance) {}

    /** A robot's document at the end. */
    public record End(String state, long offset) {}

    /** The robot was removed and added again between these wall-clock times (ms). */
    public record Renewal(String robot, long from, long to) {}

    /**
     * A node's whole link to the database (its slot protocol, its checkpoints and its robots' own collections) was
     * frozen through all of {@code [from, to]}, wall-clock ms: {@code from} read just after the link froze, {@code to}
     * just before it resumed.
     *
     * @param pid the node's process then; its runs are named {@code node/pid/n}
     * @param alive whether that process still ran at {@code to}
     */
    public record Cut(String node, long pid, long from, long to, boolean alive, long stopWithin) {

        /** A cut of a node whose slots carried its late mark: judged by the nodes' late mark. */
        public Cut(String node, long pid, long from, long to, boolean alive) {
            this(node, pid, from, to, alive, -1);
        }

        /**
         * How long after {@code from} the node's runs must have stopped: {@code stopWithin} if set (an owner a watch
         * link covered wrote no late mark, and stops only at {@code lease - lease/10}), else the late mark.
         */
        long deadline(long lateMark) {
            return stopWithin >= 0 ? stopWithin : lateMark;
        }
    }

    /**
     * A node process stopped by SIGSTOP through all of {@code [from, to]}, wall-clock ms: {@code from} read just after
     * {@code kill -STOP} returned, {@code to} just before {@code kill -CONT} was sent; {@code woke} read just after
     * {@code kill -CONT} returned.
     *
     * @param pid the process; its runs are named {@code node/pid/n}
     * @param links the watch links from standbys it had open, read from its {@code /metrics} just before the SIGSTOP;
     *     -1 if unknown
     */
    public record Freeze(String node, long pid, long from, long to, long woke, int links) {}

    /**
     * The facts of watch links, for the link-deadline row.
     *
     * @param watchLeaseMs the nodes' watch lease; 0 without watch links, and then the row is not judged
     * @param freezes every SIGSTOP of a node
     * @param resumes for a lease ({@code slot:epoch}, which names one owner), when it was resumed after a pause: the
     *     server's time of each {@code resumed} event, and the time of each such line in the nodes' logs (either is
     *     written after the resume)
     * @param takenByLink for a lease ({@code slot:epoch}) that a standby took over by a dead watch link, the server's
     *     time of that {@code took-over} event ({@code how: link}, at the next epoch)
     * @param killedAt for a node process killed with SIGKILL, by pid: when it was last known alive, just before the
     *     kill
     */
    public record Links(
            long watchLeaseMs,
            List<Freeze> freezes,
            Map<String, List<Long>> resumes,
            Map<String, Long> takenByLink,
            Map<Long, Long> killedAt) {

        /** No watch links. */
        public static final Links OFF = new Links(0, List.of(), Map.of(), Map.of(), Map.of());
    }
}
