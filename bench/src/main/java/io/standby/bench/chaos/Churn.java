package io.standby.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the churn cost, for a long run (a soak): takeovers by kind, the false ones among them, and the leases paused at
 * a watch link's deadline, each per hour, from the {@code events} collection, the node logs and the nodes'
 * {@code /metrics}.
 *
 * <p>A takeover is false when it is {@code how: link} or {@code owner-gone} (the two that do not wait out the lease)
 * and its former owner was under no fault then: the node that had that {@code ip:port} was not killed, stopped
 * (SIGSTOP), cut off from the database, stopping (SIGTERM) or draining, and the database was not restarting, from the
 * fault's start to a lease and a poll after its end (a claim by a link or at the late mark can land after a woken or
 * restarted owner's fault ended, and the event is written after the claim). A false takeover is not unsafe (the owner
 * paused first), but it moves a slot from a live owner.
 *
 * <p>A pause at a link's deadline (the node log's "no renewal outran its deadline: pausing" line) is expected from an
 * owner woken from SIGSTOP, and one of an owner cut off from the database may follow a link's end; any other is a live
 * owner whose renewal did not land within about 0.4 watch leases of a link's end.
 */
final class Churn {

    private Churn() {}

    static List<String> report(
            List<Fault> faults,
            History history,
            Map<Long, NodeScrape> scrapes,
            long fromMillis,
            long toMillis,
            long leaseMillis,
            long pollMillis) {
        double hours = (toMillis - fromMillis) / 3_600_000.0;
        long grace = leaseMillis + pollMillis;
        List<String> lines = new ArrayList<>();
        lines.add(String.format(
                "Churn over %.1f min, from the first fault to the end of the quiet period (%.2f h):",
                hours * 60, hours));
        List<String> falseOnes = new ArrayList<>();
        // Only what happened from the first fault to the end of the quiet period: not the kills that end the run.
        List<History.Event> events = history.events().stream()
                .filter(e -> e.time() >= fromMillis && e.time() <= toMillis)
                .toList();
        List<History.Line> said = history.lines().stream()
                .filter(l -> l.time() >= fromMillis && l.time() <= toMillis)
                .toList();
        for (String how : List.of("link", "owner-gone", "expired")) {
            List<History.Event> took = events.stream()
                    .filter(e -> "took-over".equals(e.type()) && how.equals(e.how()))
                    .toList();
            long wrong = 0;
            if (!how.equals("expired")) {
                for (History.Event e : took) {
                    if (excuse(faults, e, grace) == null) {
                        wrong++;
                        falseOnes.add(e.slot() + " at epoch " + e.epoch() + " by " + e.node() + " from " + e.from()
                                + " (how " + how + ") at " + e.time() + ": no fault on " + e.from() + " then");
                    }
                }
            }
            lines.add(String.format(
                    "  took-over how=%-10s %5d  %7.1f/h%s",
                    how,
                    took.size(),
                    took.size() / hours,
                    how.equals("expired") ? "" : String.format("   false: %d (%.1f/h)", wrong, wrong / hours)));
        }
        lines.add(String.format(
                "  events: released %d, lost %d, paused %d, resumed %d",
                count(events, "released"), count(events, "lost"), count(events, "paused"), count(events, "resumed")));
        int frozen = 0;
        int cut = 0;
        int live = 0;
        int liveInFault = 0;
        List<String> liveOnes = new ArrayList<>();
        for (History.Line l : said) {
            if (l.said() != History.Said.LINK_PAUSE) {
                continue;
            }
            Fault f = faults.stream()
                    .filter(x -> x.target().equals(l.node())
                            && x.kind().onNode()
                            && l.time() >= x.start()
                            && l.time() <= Math.max(x.end(), x.woke()) + grace)
                    .findFirst()
                    .orElse(null);
            if (f != null && f.kind().stops()) {
                frozen++;
            } else if (f != null && f.kind() == Fault.Kind.CUT) {
                cut++;
            } else {
                live++;
                Fault other = faults.stream()
                        .filter(x -> l.time() >= x.start() && l.time() <= Math.max(x.end(), x.woke()) + grace)
                        .findFirst()
                        .orElse(null);
                if (other != null) {
                    liveInFault++;
                }
                if (liveOnes.size() < 5) {
                    liveOnes.add(l.node() + " paused " + l.slot() + " at " + l.time()
                            + (other == null
                                    ? ", no fault then"
                                    : ", during or after fault #" + other.number() + " ("
                                            + other.kind().label() + " of " + other.target() + ")"));
                }
            }
        }
        int pauses = frozen + cut + live;
        lines.add(String.format(
                "  paused at a link's deadline (node logs) %d, %.1f/h: %d by an owner woken from SIGSTOP, "
                        + "%d by an owner cut off from the database, %d by a live owner (%.1f/h; %d of them during "
                        + "or within a lease "
                        + "and a poll after a fault elsewhere)",
                pauses, pauses / hours, frozen, cut, live, live / hours, liveInFault));
        long latePauses =
                said.stream().filter(l -> l.said() == History.Said.LATE_PAUSE).count();
        lines.add(String.format("  paused at the late mark (node logs) %d", latePauses));
        if (!scrapes.isEmpty()) {
            lines.add(String.format(
                    "  /metrics summed over %d node processes (each read last before it was killed or stopped, or "
                            + "at the end): "
                            + "standby_watch_pauses_total %d, standby_slot_pauses_total %d, "
                            + "standby_watch_takeovers_total %d, "
                            + "link ends %d as owner and %d as standby, standby_watch_refused_total %d",
                    scrapes.size(),
                    sum(scrapes, NodeScrape.WATCH_PAUSES),
                    sum(scrapes, NodeScrape.SLOT_PAUSES),
                    sum(scrapes, NodeScrape.WATCH_TAKEOVERS),
                    sum(scrapes, NodeScrape.ENDS_OWNER),
                    sum(scrapes, NodeScrape.ENDS_STANDBY),
                    sum(scrapes, NodeScrape.REFUSED)));
        }
        falseOnes.stream().limit(10).forEach(s -> lines.add("    false takeover: " + s));
        liveOnes.forEach(s -> lines.add("    live owner paused: " + s));
        return lines;
    }

    /** The fault that explains a takeover from {@code e.from()}, or null. */
    static Fault excuse(List<Fault> faults, History.Event e, long grace) {
        for (Fault f : faults) {
            boolean onIt = f.kind() == Fault.Kind.DB_RESTART
                    || f.kind().onNode() && e.from() != null && e.from().equals(f.identity());
            if (onIt && e.time() >= f.start() && e.time() <= Math.max(f.end(), f.woke()) + grace) {
                return f;
            }
        }
        return null;
    }

    private static long count(List<History.Event> events, String type) {
        return events.stream().filter(e -> type.equals(e.type())).count();
    }

    private static long sum(Map<Long, NodeScrape> scrapes, String key) {
        return scrapes.values().stream().mapToLong(s -> s.get(key)).sum();
    }
}
