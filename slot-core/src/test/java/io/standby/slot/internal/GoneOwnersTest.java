package io.standby.slot.internal;

import io.standby.slot.ManualClock;
import io.standby.slot.NodeId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.ERROR;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.OwnerProbe.Result.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decision that an owner's process is gone, on scripted connects: only refused, then refused again, by a known address. */
class GoneOwnersTest {

    private static final NodeId OWNER = new NodeId("10.0.0.5", 7700);
    private static final Duration GAP = Duration.ofMillis(30);

    private final ScriptedProbe probe = new ScriptedProbe();
    private final ManualClock clock = new ManualClock();
    private final List<Duration> sleeps = new ArrayList<>();
    private final GoneOwners gone = new GoneOwners(probe, sleeps::add, clock, Duration.ofMillis(100), GAP);

    private void seenAcceptingOnce() {
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER);
        assertTrue(gone.seenAccepting(OWNER));
    }

    @Test
    void refusedTwiceAGapApartByAnAddressThatAcceptedBeforeIsGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, REFUSED);

        String evidence = gone.gone(OWNER).orElseThrow();

        assertTrue(evidence.contains("refused twice"), evidence);
        assertEquals(List.of(GAP), sleeps, "the two connects are a gap apart");
        assertEquals(3, probe.probesOf(OWNER));
    }

    @Test
    void refusedThenAcceptedIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, ACCEPTED);

        assertTrue(gone.gone(OWNER).isEmpty());
    }

    @Test
    void aTimeoutProvesNothingAndNeedsNoSecondConnect() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, TIMEOUT);

        assertTrue(gone.gone(OWNER).isEmpty());
        assertEquals(2, probe.probesOf(OWNER));
        assertEquals(List.of(), sleeps);
    }

    @Test
    void refusedThenATimeoutOrAnyOtherErrorIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, TIMEOUT, REFUSED, ERROR);

        assertTrue(gone.gone(OWNER).isEmpty());
        assertTrue(gone.gone(OWNER).isEmpty());
    }

    @Test
    void anOwnerThatAcceptsLikeAFrozenProcessIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.always(OWNER, ACCEPTED);

        assertTrue(gone.gone(OWNER).isEmpty());
    }

    @Test
    void refusalsFromAnAddressNeverSeenAcceptingProveNothing() throws Exception {
        probe.always(OWNER, REFUSED);
        gone.learn(OWNER);

        assertFalse(gone.seenAccepting(OWNER));
        assertTrue(gone.gone(OWNER).isEmpty(), "a firewall that rejects, or an address this node does not reach, looks like this");
        assertEquals(1, probe.probesOf(OWNER), "no connect for the verdict: the address is not known to accept");
    }

    @Test
    void anAddressThatHasNotAcceptedIsTriedAgainOnlyAfterTheRetryInterval() {
        probe.then(OWNER, TIMEOUT, ACCEPTED);
        gone.learn(OWNER);
        gone.learn(OWNER);
        assertEquals(1, probe.probesOf(OWNER));

        clock.tick(GoneOwners.RETRY);
        gone.learn(OWNER);

        assertEquals(2, probe.probesOf(OWNER));
        assertTrue(gone.seenAccepting(OWNER));
        gone.learn(OWNER);
        assertEquals(2, probe.probesOf(OWNER), "a known address is not probed while its owner is timely");
    }

    @Test
    void offNeverProbes() throws Exception {
        GoneOwners.OFF.learn(OWNER);
        assertTrue(GoneOwners.OFF.gone(OWNER).isEmpty());
    }

    @Test
    void theConnectTimeoutIsAQuarterHeartbeatBetween50And250Ms() {
        assertEquals(Duration.ofMillis(50), GoneOwners.connectTimeout(Duration.ofMillis(100)));
        assertEquals(Duration.ofMillis(125), GoneOwners.connectTimeout(Duration.ofMillis(500)));
        assertEquals(Duration.ofMillis(250), GoneOwners.connectTimeout(Duration.ofSeconds(3)));
    }
}
