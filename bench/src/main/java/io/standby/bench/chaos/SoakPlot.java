package io.standby.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soak's figures as one SVG of small multiples, written by hand (no plotting library): a panel per measure, its
 * per-round figure as a thick line, each node process's own as thin grey lines (a restart starts a new one), the first
 * and last windows shaded, and each window's average drawn across it (red when the measure grows).
 */
final class SoakPlot {

    private static final int COLUMNS = 3;
    private static final int WIDTH = 360;
    private static final int HEIGHT = 190;
    private static final int LEFT = 56;
    private static final int RIGHT = 12;
    private static final int TOP = 34;
    private static final int BOTTOM = 28;

    private SoakPlot() {}

    static String svg(List<SoakSample> samples, List<SoakReport.Row> rows, SoakReport.Windows windows) {
        Map<String, List<SoakReport.Point>> series = SoakReport.series(samples);
        long from = samples.stream().mapToLong(SoakSample::atMillis).min().orElse(0);
        long to = Math.max(
                from + 1, samples.stream().mapToLong(SoakSample::atMillis).max().orElse(1));
        int panels = series.size();
        int height = Math.max(1, (panels + COLUMNS - 1) / COLUMNS) * HEIGHT + 30;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                        + " font-size=\"11\">\n",
                COLUMNS * WIDTH,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"8\" y=\"18\" font-size=\"13\">Soak: each measure over %.1f min; shaded: %s</text>\n",
                (to - from) / 60_000.0,
                escape(windows.describe())));
        int i = 0;
        for (Map.Entry<String, List<SoakReport.Point>> e : series.entrySet()) {
            SoakReport.Row row = rows.stream()
                    .filter(r -> r.measure().name().equals(e.getKey()))
                    .findFirst()
                    .orElse(null);
            int x0 = (i % COLUMNS) * WIDTH;
            int y0 = 30 + (i / COLUMNS) * HEIGHT;
            panel(
                    svg,
                    x0,
                    y0,
                    e.getKey(),
                    e.getValue(),
                    SoakReport.byProcess(samples, e.getKey()),
                    row,
                    windows,
                    from,
                    to);
            i++;
        }
        return svg.append("</svg>\n").toString();
    }

    private static void panel(
            StringBuilder svg,
            int x0,
            int y0,
            String measure,
            List<SoakReport.Point> points,
            Map<String, List<SoakSample>> processes,
            SoakReport.Row row,
            SoakReport.Windows windows,
            long from,
            long to) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (SoakReport.Point p : points) {
            min = Math.min(min, p.value());
            max = Math.max(max, p.value());
        }
        for (List<SoakSample> process : processes.values()) {
            for (SoakSample s : process) {
                min = Math.min(min, s.value());
                max = Math.max(max, s.value());
            }
        }
        if (max - min < 1e-9) {
            min -= 1;
            max += 1;
        }
        double pad = (max - min) * 0.05;
        Scale scale = new Scale(
                x0 + LEFT, y0 + TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM, from, to, min - pad, max + pad);
        String status = row == null ? "" : row.status();
        String title = measure
                + (row == null || Double.isNaN(row.change())
                        ? ""
                        : String.format(Locale.ROOT, "  %+.1f %% %s", row.change() * 100, status));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n",
                x0 + LEFT,
                y0 + 20,
                "GROWS".equals(status) ? "#c00" : "#000",
                escape(title)));
        long firstFrom = from + windows.warmUp().toMillis();
        long firstTo = firstFrom + windows.window().toMillis();
        long lastFrom = to - windows.window().toMillis();
        shade(svg, scale, firstFrom, Math.min(firstTo, to));
        shade(svg, scale, Math.max(lastFrom, from), to);
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n",
                scale.left,
                scale.top,
                scale.width,
                scale.height));
        axisLabels(svg, scale, min - pad, max + pad, from, to);
        for (List<SoakSample> process : processes.values()) {
            List<double[]> xy = new ArrayList<>();
            process.forEach(s -> xy.add(new double[] {scale.x(s.atMillis()), scale.y(s.value())}));
            polyline(svg, xy, "#bbb", 1);
        }
        List<double[]> xy = new ArrayList<>();
        points.forEach(p -> xy.add(new double[] {scale.x(p.atMillis()), scale.y(p.value())}));
        polyline(svg, xy, "#1f5fbf", 2);
        if (row != null) {
            String colour = row.grows() ? "#c00" : "#2a8a2a";
            average(svg, scale, firstFrom, Math.min(firstTo, to), row.first(), colour);
            average(svg, scale, Math.max(lastFrom, from), to, row.last(), colour);
        }
    }

    private record Scale(
            double left, double top, double width, double height, long from, long to, double min, double max) {
        double x(long at) {
            return left + width * (at - from) / (double) (to - from);
        }

        double y(double v) {
            return top + height - height * (v - min) / (max - min);
        }
    }

    private static void shade(StringBuilder svg, Scale scale, long from, long to) {
        if (to <= from) {
            return;
        }
        svg.append(String.format(
                Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#eef3fb\"/>\n",
                scale.x(from),
                scale.top,
                scale.x(to) - scale.x(from),
                scale.height));
    }

    private static void average(StringBuilder svg, Scale scale, long from, long to, double value, String colour) {
        if (Double.isNaN(value) || to <= from) {
            return;
        }
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\""
                        + " stroke-dasharray=\"5,3\"/>\n",
                scale.x(from),
                scale.y(value),
                scale.x(to),
                scale.y(value),
                colour));
    }

    private static void axisLabels(StringBuilder svg, Scale scale, double min, double max, long from, long to) {
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                scale.left - 4,
                scale.top + 10,
                label(max)));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                scale.left - 4,
                scale.top + scale.height,
                label(min)));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\">0</text>\n"
                        + "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f min</text>\n",
                scale.left,
                scale.top + scale.height + 14,
                scale.left + scale.width,
                scale.top + scale.height + 14,
                (to - from) / 60_000.0));
    }

    private static String label(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static void polyline(StringBuilder svg, List<double[]> xy, String colour, double width) {
        if (xy.isEmpty()) {
            return;
        }
        StringBuilder points = new StringBuilder();
        for (double[] p : xy) {
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", p[0], p[1]));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
                points.toString().trim(),
                colour,
                width));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
