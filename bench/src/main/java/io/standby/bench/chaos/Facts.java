package io.standby.bench.chaos;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Everything the verdict judges, read after the quiet period: the input, the outputs, the recorded runs
 * and writes, each robot's final document, and when each robot was removed and added again.
 *
 * @param input    seq to amount, as the producer's acknowledged inserts left it
 * @param outputs  every output document, per robot
 * @param records  every recorded run start and checkpoint call, from every node process
 * @param ends     each robot's final state and context offset; a robot missing here is missing in the database
 * @param robots   the robots that should exist
 * @param renewals rm+add of a robot: from just before the rm to just after the add succeeded
 * @param cuts     the links frozen, each with the node process it cut off
 * @param lateMark the late mark the nodes write into their slots (2 heartbeats), in ms
 */
public record Facts(SortedMap<Long, Long> input, Map<String, List<Output>> outputs, List<Checkpoint> records,
                    Map<String, End> ends, List<String> robots, List<Renewal> renewals, List<Cut> cuts, long lateMark) {

    /** One output document of the ledger. */
    public record Output(long seq, Long amount, Long balance) {
    }

    /** A robot's document at the end. */
    public record End(String state, long offset) {
    }

    /** The robot was removed and added again between these wall-clock times (ms). */
    public record Renewal(String robot, long from, long to) {
    }

    /**
     * A node's whole link to the database (its slot protocol, its checkpoints and its robots' own
     * collections) was frozen through all of {@code [from, to]}, wall-clock ms: {@code from} read just after
     * the link froze, {@code to} just before it resumed.
     *
     * @param pid   the node's process then; its runs are named {@code node/pid/n}
     * @param alive whether that process still ran at {@code to}
     */
    public record Cut(String node, long pid, long from, long to, boolean alive) {
    }
}
