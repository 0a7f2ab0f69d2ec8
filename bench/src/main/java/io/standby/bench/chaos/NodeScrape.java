package io.standby.bench.chaos;

import io.standby.bench.Scrape;
import java.util.HashMap;
import java.util.Map;

/**
 * The watch-link meters of one node process, read from its {@code /metrics} (Prometheus' text) at {@code atMillis}: the
 * links open now on either side, and what its links did since the process started.
 */
record NodeScrape(long atMillis, Map<String, Double> values) {

    /** Links from standbys that watch this node, open now. */
    static final String LINKS_OWNER = "standby_watch_links{side=owner}";

    static final String WATCH_PAUSES = "standby_watch_pauses_total";
    static final String SLOT_PAUSES = "standby_slot_pauses_total";
    static final String WATCH_TAKEOVERS = "standby_watch_takeovers_total";
    static final String ENDS_OWNER = "standby_watch_link_ends_total{side=owner}";
    static final String ENDS_STANDBY = "standby_watch_link_ends_total{side=standby}";
    static final String REFUSED = "standby_watch_refused_total";
    /** Gauge, tag {@code map}: the entries of one of the node's own maps (see {@code StandbyMeters.REMEMBERED}). */
    static final String REMEMBERED = "standby_node_remembered";

    NodeScrape {
        values = Map.copyOf(values);
    }

    /** The meters of the node on {@code port}, or null if it does not answer within two seconds. */
    static NodeScrape of(int port) {
        Scrape scrape = Scrape.of(port);
        return scrape == null ? null : of(System.currentTimeMillis(), scrape);
    }

    /** The {@code standby_watch_*} and {@code standby_slot_pauses_total} series, summed by name and side. */
    static NodeScrape parse(long atMillis, String text) {
        return of(atMillis, Scrape.parse(System.nanoTime(), text));
    }

    private static NodeScrape of(long atMillis, Scrape scrape) {
        Map<String, Double> values = new HashMap<>();
        for (Scrape.Sample sample : scrape.samples()) {
            String name = sample.name();
            if (!name.startsWith("standby_watch_") && !name.equals(SLOT_PAUSES)) {
                continue;
            }
            String side = sample.labels().get("side");
            values.merge(side == null ? name : name + "{side=" + side + "}", sample.value(), Double::sum);
        }
        return new NodeScrape(atMillis, values);
    }

    long get(String key) {
        return Math.round(values.getOrDefault(key, 0.0));
    }
}
