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
 */
public record Facts(SortedMap<Long, Long> input, Map<String, List<Output>> outputs, List<Checkpoint> records,
                    Map<String, End> ends, List<String> robots, List<Renewal> renewals) {

    /** One output document of the ledger. */
    public record Output(long seq, Long amount, Long balance) {
    }

    /** A robot's document at the end. */
    public record End(String state, long offset) {
    }

    /** The robot was removed and added again between these wall-clock times (ms). */
    public record Renewal(String robot, long from, long to) {
    }
}
