package io.standby.bench.chaos;

import java.util.Locale;

/**
 * One figure of a soak's sampling round: a node process's (heap, RSS, threads, file descriptors, commands per second,
 * the sizes of its own maps) or the cluster's (a collection's documents, node {@link #CLUSTER}).
 *
 * @param round the sampling round, from 1
 * @param atMillis wall clock of the read
 * @param node the node's name, which stays over its restarts; {@link #CLUSTER} for the database's figures
 * @param pid the node's process then; 0 for the cluster
 * @param warm false while the process is in its own warm-up (its first minute, or less in a short run): left out of the
 *     judgement, since a JVM that has just started is not yet at its steady size
 * @param measure see {@link SoakMeasure}
 */
record SoakSample(int round, long atMillis, String node, long pid, boolean warm, String measure, double value) {

    static final String CLUSTER = "cluster";

    static final String CSV_HEADER = "round,at_ms,node,pid,warm,measure,value";

    String csv() {
        return String.format(
                Locale.ROOT, "%d,%d,%s,%d,%s,%s,%s", round, atMillis, node, pid, warm, measure, format(value));
    }

    static SoakSample parse(String line) {
        String[] f = line.split(",");
        return new SoakSample(
                Integer.parseInt(f[0]),
                Long.parseLong(f[1]),
                f[2],
                Long.parseLong(f[3]),
                Boolean.parseBoolean(f[4]),
                f[5],
                Double.parseDouble(f[6]));
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.3f", v);
    }
}
