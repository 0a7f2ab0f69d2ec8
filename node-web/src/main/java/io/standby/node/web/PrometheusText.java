package io.standby.node.web;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The Prometheus text of a registry that is Prometheus' own. Alone in its class so that a node given another registry,
 * without the Prometheus registry on its class path, never links against it.
 */
final class PrometheusText {

    /** Prometheus' text exposition format, the one {@link PrometheusMeterRegistry#scrape()} writes. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {}

    /** The registry's scrape, if it is a Prometheus registry. */
    static Optional<Supplier<String>> of(Object registry) {
        try {
            return Scrape.of(registry);
        } catch (LinkageError e) {
            return Optional.empty();
        }
    }

    private static final class Scrape {
        static Optional<Supplier<String>> of(Object registry) {
            return registry instanceof PrometheusMeterRegistry prometheus
                    ? Optional.of(prometheus::scrape)
                    : Optional.empty();
        }
    }
}
