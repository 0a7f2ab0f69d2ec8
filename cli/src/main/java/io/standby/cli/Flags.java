package io.standby.cli;

import io.standby.slot.SlotTable;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line's names for the settings the core names in its messages: the core says "heartbeat 0s
 * must be more than 0", the command line "--heartbeat 0s must be more than 0". Applied only around the
 * calls that check what the user typed, so that a word like "lease" or "poll" elsewhere stays a word.
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
        BY_SETTING.put("heartbeat", "--heartbeat");
        BY_SETTING.put("lease", "--lease");
        BY_SETTING.put("poll", "--poll");
    }

    private Flags() {
    }

    /** Runs a check of user input; its complaint names the command line's options. */
    static <T> T checked(Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(named(e.getMessage()), e);
        }
    }

    static void checked(Runnable check) {
        checked(() -> {
            check.run();
            return null;
        });
    }

    static String named(String message) {
        if (message == null) {
            return null;
        }
        String named = message.replace(SlotTable.NO_SLOTS, "there are no slots (create them with 'standby slots init --count N')");
        for (Map.Entry<String, String> setting : BY_SETTING.entrySet()) {
            named = Pattern.compile("\\b" + Pattern.quote(setting.getKey()) + "\\b").matcher(named)
                    .replaceAll(Matcher.quoteReplacement(setting.getValue()));
        }
        return named;
    }
}
