package io.standby.bench.chaos;

/**
 * One recorded fact of a chaos-ledger run, as a line of a node's record file: a run's start (the offset of the context
 * it was given), a checkpoint call (the offset it wrote, and whether it was accepted), or the run's end (its return
 * from {@code Robot.run}; a run of a process killed while it ran has none). Times are the node's wall clock in
 * milliseconds just before and just after the call; every process runs on one host, so all records share one clock. An
 * accepted write landed somewhere inside {@code [before, after]}.
 *
 * @param kind {@link Kind#START}, {@link Kind#WRITE} or {@link Kind#END}
 * @param run node, pid and a counter: one call of {@code Robot.run}
 * @param result for a write: {@code ok}, {@code fenced} or {@code error}; for a start: {@code start}; for an end:
 *     {@code returned} or {@code threw} ({@code before} = {@code after} = just after the return)
 */
public record Checkpoint(
        Kind kind,
        String robot,
        String node,
        String run,
        String slot,
        long epoch,
        long offset,
        long before,
        long after,
        String result) {

    /** What a line records. */
    public enum Kind {
        START,
        WRITE,
        END
    }

    public boolean accepted() {
        return kind == Kind.WRITE && "ok".equals(result);
    }

    String line() {
        return String.join(
                "\t",
                kind.name(),
                robot,
                node,
                run,
                slot,
                Long.toString(epoch),
                Long.toString(offset),
                Long.toString(before),
                Long.toString(after),
                result);
    }

    /** The record of a line, or null for a line that a kill cut short. */
    static Checkpoint parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 10) {
            return null;
        }
        try {
            return new Checkpoint(
                    Kind.valueOf(f[0]),
                    f[1],
                    f[2],
                    f[3],
                    f[4],
                    Long.parseLong(f[5]),
                    Long.parseLong(f[6]),
                    Long.parseLong(f[7]),
                    Long.parseLong(f[8]),
                    f[9]);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
