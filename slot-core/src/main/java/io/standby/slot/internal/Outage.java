package io.standby.slot.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs the first failure of an outage and its end, instead of one line per attempt. */
final class Outage {

    private static final Logger log = LoggerFactory.getLogger(Outage.class);

    private volatile boolean down;

    void failed(String what, RuntimeException e) {
        if (!down) {
            down = true;
            log.warn("{}: {}", what, e.toString());
        } else {
            log.debug("{}: {}", what, e.toString());
        }
    }

    void succeeded() {
        if (down) {
            down = false;
            log.info("Database reachable again");
        }
    }
}
