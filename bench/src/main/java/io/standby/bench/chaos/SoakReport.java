package io.standby.bench.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A soak's judgement of its samples: each measure's average over a first window (after a warm-up) against its average
 * over the last window, as a table (OK, or GROWS past {@link SoakMeasure#LIMIT}), a CSV of every sample and an SVG of
 * every measure over time with both windows marked.
 */
final class SoakReport {

    private SoakReport() {}

    /**
     * Where the windows lie in the span sampled: the first starts after {@code warmUp}, the last ends with the span,
     * both {@code window} long. A 60-minute soak (or longer): 5 minutes of warm-up, then 10-minute windows. A shorter
     * one scales them: a twelfth of the span, then a sixth each.
     */
    record Windows(Duration warmUp, Duration window) {

        static Windows forSpan(Duration span) {
            Duration sixth = span.dividedBy(6);
            Duration window = sixth.compareTo(Duration.ofMinutes(10)) < 0 ? sixth : Duration.ofMinutes(10);
            return new Windows(window.dividedBy(2), window);
        }

        /**
         * A node process's own warm-up, left out of the judgement: its first minute, or the run's warm-up if shorter.
         */
        Duration nodeWarmUp() {
            return warmUp.compareTo(Duration.ofMinutes(1)) < 0 ? warmUp : Duration.ofMinutes(1);
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "first window: %s to %s after sampling began; last window: the final %s",
                    time(warmUp),
                    time(warmUp.plus(window)),
                    time(window));
        }

        private static String time(Duration d) {
            return d.toSeconds() % 60 == 0 && d.toMinutes() > 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
        }
    }

    /** One measure's judgement: the two windows' averages of its per-round figure, and how many rounds each had. */
    record Row(SoakMeasure measure, double first, double last, int firstRounds, int lastRounds) {

        double change() {
            return first == 0 ? (last == 0 ? 0 : Double.POSITIVE_INFINITY) : (last - first) / first;
        }

        boolean grows() {
            return measure.judged()
                    && !Double.isNaN(first)
                    && !Double.isNaN(last)
                    && last > first * (1 + SoakMeasure.LIMIT) + measure.slack();
        }

        String status() {
            if (Double.isNaN(first) || Double.isNaN(last)) {
                return "n/a";
            }
            if (!measure.judged()) {
                return "info";
            }
            return grows() ? "GROWS" : "OK";
        }
    }

    /** A measure's figure in one round: the mean over the warm nodes read, or the cluster's own. */
    record Point(int round, long atMillis, double value) {}

    /** Each measure's per-round series, by measure name, in the table's order. */
    static Map<String, List<Point>> series(List<SoakSample> samples) {
        Map<String, Map<Integer, List<SoakSample>>> byMeasure = new TreeMap<>(order());
        for (SoakSample s : samples) {
            if (s.warm() && !Double.isNaN(s.value())) {
                byMeasure
                        .computeIfAbsent(s.measure(), m -> new TreeMap<>())
                        .computeIfAbsent(s.round(), r -> new ArrayList<>())
                        .add(s);
            }
        }
        Map<String, List<Point>> series = new LinkedHashMap<>();
        byMeasure.forEach((measure, rounds) -> {
            List<Point> points = new ArrayList<>();
            rounds.forEach((round, these) -> points.add(new Point(
                    round,
                    Math.round(these.stream()
                            .mapToLong(SoakSample::atMillis)
                            .average()
                            .orElseThrow()),
                    these.stream().mapToDouble(SoakSample::value).average().orElseThrow())));
            series.put(measure, points);
        });
        return series;
    }

    static Comparator<String> order() {
        return Comparator.comparingInt((String m) -> SoakMeasure.of(m).rank()).thenComparing(m -> m);
    }

    /** The judgement of every measure sampled, between the windows of the span from the first sample to the last. */
    static List<Row> judge(List<SoakSample> samples, Windows windows) {
        if (samples.isEmpty()) {
            return List.of();
        }
        long from = samples.stream().mapToLong(SoakSample::atMillis).min().orElseThrow();
        long to = samples.stream().mapToLong(SoakSample::atMillis).max().orElseThrow();
        long firstFrom = from + windows.warmUp().toMillis();
        long firstTo = firstFrom + windows.window().toMillis();
        long lastFrom = to - windows.window().toMillis();
        List<Row> rows = new ArrayList<>();
        series(samples).forEach((measure, points) -> {
            List<Point> first = points.stream()
                    .filter(p -> p.atMillis() >= firstFrom && p.atMillis() <= firstTo)
                    .toList();
            List<Point> last =
                    points.stream().filter(p -> p.atMillis() >= lastFrom).toList();
            SoakMeasure m = SoakMeasure.of(measure);
            rows.add(new Row(m, typical(m, first), typical(m, last), first.size(), last.size()));
        });
        return rows;
    }

    /** A window's figure: the average of its rounds, or their median for a measure judged by it. */
    static double typical(SoakMeasure measure, List<Point> points) {
        if (points.isEmpty()) {
            return Double.NaN;
        }
        double[] values = points.stream().mapToDouble(Point::value).sorted().toArray();
        if (!measure.median()) {
            return java.util.Arrays.stream(values).average().orElseThrow();
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    /** Whether any judged measure grew. */
    static boolean anyGrows(List<Row> rows) {
        return rows.stream().anyMatch(Row::grows);
    }

    static List<String> table(List<Row> rows, Windows windows) {
        List<String> lines = new ArrayList<>();
        lines.add("Growth, " + windows.describe() + "; per-node measures are the mean over the nodes read in a round"
                + " (a process in its own warm-up left out), averaged over the window (commands/s: the median round);"
                + " GROWS: more than +"
                + Math.round(SoakMeasure.LIMIT * 100) + " % plus the measure's slack:");
        lines.add(String.format(
                Locale.ROOT,
                "  %-24s %12s %12s %9s  %-6s %s",
                "measure",
                "first avg",
                "last avg",
                "change",
                "status",
                "rounds (first/last), slack"));
        for (Row row : rows) {
            lines.add(String.format(
                    Locale.ROOT,
                    "  %-24s %12s %12s %9s  %-6s %d/%d%s",
                    row.measure().name()
                            + (row.measure().unit().isEmpty()
                                    ? ""
                                    : " (" + row.measure().unit() + ")"),
                    figure(row.first()),
                    figure(row.last()),
                    Double.isNaN(row.change()) ? "" : String.format(Locale.ROOT, "%+.1f %%", row.change() * 100),
                    row.status(),
                    row.firstRounds(),
                    row.lastRounds(),
                    row.measure().slack() > 0
                            ? ", +" + figure(row.measure().slack())
                            : row.measure().judged() ? "" : ", " + row.measure().why()));
        }
        return lines;
    }

    private static String figure(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return Math.abs(v) >= 100 || v == Math.rint(v)
                ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    static void writeCsv(Path file, List<SoakSample> samples) {
        List<String> lines = new ArrayList<>();
        lines.add(SoakSample.CSV_HEADER);
        samples.forEach(s -> lines.add(s.csv()));
        write(file, String.join("\n", lines) + "\n");
    }

    static void writeSvg(Path file, List<SoakSample> samples, List<Row> rows, Windows windows) {
        write(file, SoakPlot.svg(samples, rows, windows));
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The samples of one node process, for the plot's thin lines. */
    static Map<String, List<SoakSample>> byProcess(List<SoakSample> samples, String measure) {
        return samples.stream()
                .filter(s -> s.measure().equals(measure) && !s.node().equals(SoakSample.CLUSTER))
                .collect(Collectors.groupingBy(s -> s.node() + "/" + s.pid(), TreeMap::new, Collectors.toList()));
    }
}
