package io.standby.slot.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the slot listener so that a listener that throws never stops the protocol. */
final class Notify {

    private static final Logger log = LoggerFactory.getLogger(Notify.class);

    private Notify() {}

    static void safely(String event, Object about, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.error("Slot listener failed on {} for {}", event, about, e);
        }
    }
}
