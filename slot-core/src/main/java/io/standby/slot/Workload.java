package io.standby.slot;

import java.util.List;

/** What a node's robots amount to, for its registry document: how many run, and how many failed for good. */
public record Workload(int running, int failed, List<String> types) {

    public static final Workload NONE = new Workload(0, 0, List.of());

    public Workload {
        types = List.copyOf(types);
    }

    /** The same counts, for a node that runs robots of these types. */
    public Workload withTypes(List<String> robotTypes) {
        return new Workload(running, failed, robotTypes);
    }
}
