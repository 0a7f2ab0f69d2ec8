package io.standby.cli;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The wire commands known to change no stored data. Anything not listed counts as a write, so that a command this list
 * does not know (a new one in a later mongo-java-server) is made durable before it is acknowledged instead of being
 * missed.
 */
final class ReadOnlyCommands {

    private static final Set<String> NAMES = Set.of(
            "find",
            "getmore",
            "count",
            "distinct",
            "killcursors",
            "listcollections",
            "listindexes",
            "listdatabases",
            "collstats",
            "dbstats",
            "ismaster",
            "hello",
            "ping",
            "buildinfo",
            "whatsmyuri",
            "serverstatus",
            "hostinfo",
            "getcmdlineopts",
            "getfreemonitoringstatus",
            "connectionstatus",
            "getlog",
            "getlasterror",
            "getparameter",
            "replsetgetstatus",
            "endsessions");

    private ReadOnlyCommands() {}

    /** True if {@code command} (with its body {@code query}) cannot change stored data. */
    static boolean contains(String command, Map<String, Object> query) {
        String name = command.toLowerCase(Locale.ROOT);
        if (name.equals("aggregate")) {
            return !writesOutput(query.get("pipeline"));
        }
        return NAMES.contains(name);
    }

    /**
     * An aggregation writes when a stage is {@code $out} or {@code $merge}; a pipeline we cannot read counts as
     * writing.
     */
    private static boolean writesOutput(Object pipeline) {
        if (!(pipeline instanceof List<?> stages)) {
            return true;
        }
        for (Object stage : stages) {
            if (!(stage instanceof Map<?, ?> map) || map.containsKey("$out") || map.containsKey("$merge")) {
                return true;
            }
        }
        return false;
    }
}
