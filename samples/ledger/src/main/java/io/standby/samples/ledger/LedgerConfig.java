package io.standby.samples.ledger;

import java.time.Duration;
import java.util.Objects;
import org.bson.Document;

/**
 * A ledger robot's configuration, checked when it is made: {@code standby robot add} refuses a bad one (through
 * {@link LedgerRobot.Factory#validate}), and a node refuses to start a robot whose stored config was edited into a bad
 * one.
 *
 * @param uri the MongoDB holding the ledger's collections; null: the factory's default (the node's own
 *     {@code STANDBY_MONGO_URI}, else {@value #DEFAULT_URI})
 * @param database the database of the three collections (default {@value #DEFAULT_DATABASE})
 * @param input what the ledger reads: documents {@code {seq, amount, ...}} (default {@value #DEFAULT_INPUT})
 * @param output what it appends: one document per input (default {@value #DEFAULT_OUTPUT})
 * @param fences one document per robot naming the run allowed to append (default: output + {@code _fences})
 * @param firstSeq the first sequence number of the input (default 1)
 * @param batch inputs appended per round trip (default {@value #DEFAULT_BATCH})
 * @param poll how long to wait when there is no new input (config {@code pollMs}, default 500)
 */
public record LedgerConfig(
        String uri,
        String database,
        String input,
        String output,
        String fences,
        long firstSeq,
        int batch,
        Duration poll) {

    public static final String DEFAULT_URI = "mongodb://127.0.0.1:27017";
    public static final String DEFAULT_DATABASE = "ledger";
    public static final String DEFAULT_INPUT = "ledger_in";
    public static final String DEFAULT_OUTPUT = "ledger_out";
    public static final int DEFAULT_BATCH = 100;
    public static final Duration DEFAULT_POLL = Duration.ofMillis(500);

    public LedgerConfig {
        Objects.requireNonNull(database, "database");
        requireName("input", input);
        requireName("output", output);
        requireName("fences", fences);
        if (input.equals(output) || input.equals(fences) || output.equals(fences)) {
            throw new IllegalArgumentException("input, output and fences must be three different collections");
        }
        if (batch < 1 || batch > 10_000) {
            throw new IllegalArgumentException("batch " + batch + " must be 1-10000");
        }
        if (poll.toMillis() < 1) {
            throw new IllegalArgumentException("pollMs " + poll.toMillis() + " must be at least 1");
        }
    }

    /** The configuration a robot document holds, with the defaults above for what it leaves out. */
    public static LedgerConfig of(Document config) {
        String output = text(config, "output", DEFAULT_OUTPUT);
        return new LedgerConfig(
                text(config, "uri", null),
                text(config, "database", DEFAULT_DATABASE),
                text(config, "input", DEFAULT_INPUT),
                output,
                text(config, "fences", output + "_fences"),
                number(config, "firstSeq", 1),
                (int) number(config, "batch", DEFAULT_BATCH),
                Duration.ofMillis(number(config, "pollMs", DEFAULT_POLL.toMillis())));
    }

    private static void requireName(String key, String name) {
        if (name == null || name.isBlank() || name.startsWith("system.") || name.contains("$")) {
            throw new IllegalArgumentException(key + " '" + name + "' is not a collection name");
        }
    }

    private static String text(Document config, String key, String fallback) {
        Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof String s) || s.isBlank()) {
            throw new IllegalArgumentException(key + " '" + value + "' must be a non-empty string");
        }
        return s;
    }

    private static long number(Document config, String key, long fallback) {
        Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        try {
            return Long.parseLong(value.toString());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + value + "' is not a whole number");
        }
    }
}
