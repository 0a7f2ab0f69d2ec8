package io.standby.cli;

import io.standby.slot.SlotTable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line's names for the settings the core names in its messages: the core says "heartbeat 0s must be more
 * than 0", the command line "--heartbeat 0s must be more than 0". Applied only around the calls that check what the
 * user typed, so that a word like "lease" or "poll" elsewhere stays a word.
 */
final class Flags {

    private static final Map<String, String> BY_SETTING = new LinkedHashMap<>();

    static {
        BY_SETTING.put("max slots", "--max-slots");
        BY_SETTING.put("stop timeout", "--stop-timeout");
        BY_SETTING.put("plugin directory", "--plugins");
        BY_SETTING.put("MongoDB URI", "--mongo URI");
        BY_SETTING.put("database name", "--db");
        BY_SETTING.put("slot count", "--count");
        BY_SETTING.put("robot type", "--type");
        BY_SETTING.put("weight", "--weight");
        BY_SETTING.put("capacity", "--capacity");
        BY_SETTING.put("watch lease", "--watch-lease");
        BY_SETTING.put("watch port", "--watch-port");
        BY_SETTING.put("heartbeat", "--heartbeat");
        BY_SETTING.put("lease", "--lease");
        BY_SETTING.put("poll", "--poll");
        BY_SETTING.put("ip", "--ip");
        BY_SETTING.put("port", "--port");
    }

    private Flags() {}

    /**
     * Runs a check of what the user typed, and nothing else: its complaint is a usage error (exit code 2) that names
     * the command line's options.
     */
    static <T> T usage(Supplier<T> check) {
        return naming(check, UsageError::new);
    }

    /** A usage error (exit code 2) with this message. */
    static UsageError invalid(String message) {
        return new UsageError(message, null);
    }

    /** What the user typed is wrong: reported like a parser's complaint, with exit code 2. */
    static final class UsageError extends IllegalArgumentException {
        UsageError(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Runs an operation that may refuse what the user asked for: its complaint names the command line's options, and
     * the command fails with exit code 1.
     */
    static <T> T checked(Supplier<T> operation) {
        return naming(operation, IllegalArgumentException::new);
    }

    /** Runs {@code call}; its complaint is thrown again, in the command line's names, as {@code as} makes it. */
    private static <T> T naming(
            Supplier<T> call, BiFunction<String, Throwable, ? extends IllegalArgumentException> as) {
        try {
            return call.get();
        } catch (IllegalArgumentException e) {
            throw as.apply(named(e.getMessage()), e);
        }
    }

    static String named(String message) {
        if (message == null) {
            return null;
        }
        String named = message.replace(
                SlotTable.NO_SLOTS, "there are no slots (create them with 'standby slots init --count N')");
        for (Map.Entry<String, String> setting : BY_SETTING.entrySet()) {
            // Not inside a name already given: "lease" in "--watch-lease" stays.
            named = Pattern.compile("(?<![-\\w])" + Pattern.quote(setting.getKey()) + "\\b")
                    .matcher(named)
                    .replaceAll(Matcher.quoteReplacement(setting.getValue()));
        }
        return named;
    }
}
