package io.standby.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One read of a node's {@code /metrics} (Prometheus' text format): every sample by name and labels. {@link #of} reads
 * it from a node's identity port.
 */
public record Scrape(long atNanos, List<Sample> samples) {

    /** {@code name{labels} value}. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LINE =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+\\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    public Scrape {
        samples = List.copyOf(samples);
    }

    /** The node's {@code /metrics} now, or null if it did not answer 200. */
    public static Scrape of(int port) {
        long at = System.nanoTime();
        String body = NodeHttp.body(port, "/metrics");
        return body == null ? null : parse(at, body);
    }

    public static Scrape parse(long atNanos, String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher label = LABEL.matcher(m.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            double value;
            try {
                value = Double.parseDouble(m.group(3));
            } catch (NumberFormatException e) {
                continue;
            }
            samples.add(new Sample(m.group(1), labels, value));
        }
        return new Scrape(atNanos, samples);
    }

    /**
     * The sum of the samples named {@code name} whose labels include {@code labels} (pairs of name and value), or empty
     * when there is none.
     */
    public OptionalDouble sum(String name, String... labels) {
        double sum = 0;
        boolean found = false;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && matches(sample.labels(), labels)) {
                sum += sample.value();
                found = true;
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    /** {@link #sum}, or fails naming the meter when the node has none. */
    public double value(String name, String... labels) {
        return sum(name, labels)
                .orElseThrow(() -> new IllegalStateException(
                        "no meter " + name + " " + String.join("=", labels) + " in /metrics"));
    }

    private static boolean matches(Map<String, String> have, String[] want) {
        for (int i = 0; i + 1 < want.length; i += 2) {
            if (!want[i + 1].equals(have.get(want[i]))) {
                return false;
            }
        }
        return true;
    }
}
