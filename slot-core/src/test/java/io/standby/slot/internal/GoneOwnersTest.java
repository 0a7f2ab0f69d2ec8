package io.standby.slot.internal;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.ERROR;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.OwnerProbe.Result.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decision that an owner's process is gone, on scripted connects: only refused, then refused again, by a known
 * address.
 */
class GoneOwnersTest {

    private static final NodeId OWNER = new NodeId("10.0.0.5", 7700);
    /** The process that owns the slot under {@link #OWNER}, and a later one under the same address. */
    private static final String FIRST = "4242-0a0b0c0d@worker-3:5c3e1a7f:4026531840";

    private static final String NEXT = "4343-0e0f1011@worker-3:5c3e1a7f:4026531840";
    private static final Duration GAP = Duration.ofMillis(30);

    private final ScriptedProbe probe = new ScriptedProbe();
    private final ManualClock clock = new ManualClock();
    private final List<Duration> sleeps = new ArrayList<>();
    private final GoneOwners gone = new GoneOwners(probe, sleeps::add, clock, Duration.ofMillis(100), GAP);

    private void seenAcceptingOnce() {
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER, FIRST);
        assertTrue(gone.seenAccepting(OWNER, FIRST));
    }

    @Test
    void refusedTwiceAGapApartByAnAddressThatAcceptedBeforeIsGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, REFUSED);

        String evidence = gone.gone(OWNER, FIRST).orElseThrow();

        assertTrue(evidence.contains("refused twice"), evidence);
        assertEquals(List.of(GAP), sleeps, "the two connects are a gap apart");
        assertEquals(3, probe.probesOf(OWNER));
    }

    @Test
    void refusedThenAcceptedIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, ACCEPTED);

        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
    }

    @Test
    void aTimeoutProvesNothingAndNeedsNoSecondConnect() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, TIMEOUT);

        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
        assertEquals(2, probe.probesOf(OWNER));
        assertEquals(List.of(), sleeps);
    }

    @Test
    void refusedThenATimeoutOrAnyOtherErrorIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.then(OWNER, REFUSED, TIMEOUT, REFUSED, ERROR);

        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
    }

    @Test
    void anOwnerThatAcceptsLikeAFrozenProcessIsNotGone() throws Exception {
        seenAcceptingOnce();
        probe.always(OWNER, ACCEPTED);

        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
    }

    @Test
    void refusalsFromAnAddressNeverSeenAcceptingProveNothing() throws Exception {
        probe.always(OWNER, REFUSED);
        gone.learn(OWNER, FIRST);

        assertFalse(gone.seenAccepting(OWNER, FIRST));
        assertTrue(
                gone.gone(OWNER, FIRST).isEmpty(),
                "a firewall that rejects, or an address this node does not reach, looks like this");
        assertEquals(1, probe.probesOf(OWNER), "no connect for the verdict: the address is not known to accept");
    }

    @Test
    void anAddressThatHasNotAcceptedIsTriedAgainOnlyAfterTheRetryInterval() {
        probe.then(OWNER, TIMEOUT, ACCEPTED);
        gone.learn(OWNER, FIRST);
        gone.learn(OWNER, FIRST);
        assertEquals(1, probe.probesOf(OWNER));

        clock.tick(GoneOwners.RETRY);
        gone.learn(OWNER, FIRST);

        assertEquals(2, probe.probesOf(OWNER));
        assertTrue(gone.seenAccepting(OWNER, FIRST));
        gone.learn(OWNER, FIRST);
        assertEquals(
                2,
                probe.probesOf(OWNER),
                "an instance seen accepting is not probed again while its owner is timely and its evidence young");
    }

    @Test
    void anAddressSeenAcceptingUnderOneInstanceIsNoEvidenceAgainstTheNextInstanceThere() throws Exception {
        // The next process under the same address sits behind a rule that rejects from its start: this
        // node never reached it, so its refusals say nothing about whether it lives.
        seenAcceptingOnce();
        probe.always(OWNER, REFUSED);
        gone.learn(OWNER, NEXT);

        assertFalse(gone.seenAccepting(OWNER, NEXT));
        assertTrue(gone.gone(OWNER, NEXT).isEmpty(), "the acceptance belonged to the former instance");
        assertEquals(2, probe.probesOf(OWNER), "one to learn each instance, none for a verdict");
    }

    @Test
    void theRetryIntervalIsCountedPerInstance() {
        // The former instance never accepted; the next one under the same address is tried at once.
        probe.then(OWNER, TIMEOUT, ACCEPTED);
        gone.learn(OWNER, FIRST);
        gone.learn(OWNER, NEXT);

        assertEquals(2, probe.probesOf(OWNER));
        assertTrue(gone.seenAccepting(OWNER, NEXT));
        assertFalse(gone.seenAccepting(OWNER, FIRST));
    }

    @Test
    void evidenceAsOldAsTheBoundNoLongerCounts() throws Exception {
        seenAcceptingOnce();
        clock.tick(GoneOwners.EVIDENCE_AGE);
        probe.always(OWNER, REFUSED);

        assertFalse(gone.seenAccepting(OWNER, FIRST));
        assertTrue(gone.gone(OWNER, FIRST).isEmpty(), "what this node reached a minute ago it may not reach now");
        assertEquals(1, probe.probesOf(OWNER), "no connect for the verdict");
    }

    @Test
    void aTimelyOwnerIsLearntAgainSoThatItsEvidenceStaysYoung() throws Exception {
        seenAcceptingOnce();
        clock.tick(GoneOwners.RETRY.minusMillis(1));
        gone.learn(OWNER, FIRST);
        assertEquals(1, probe.probesOf(OWNER), "young evidence is not renewed");

        clock.tick(Duration.ofMillis(1));
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER, FIRST);
        assertEquals(2, probe.probesOf(OWNER), "evidence as old as the retry interval is renewed");

        clock.tick(GoneOwners.EVIDENCE_AGE.minus(GoneOwners.RETRY));
        probe.then(OWNER, REFUSED, REFUSED);
        assertTrue(gone.gone(OWNER, FIRST).isPresent(), "the first acceptance has aged out, the renewed one has not");
    }

    @Test
    void aTimelyOwnerWhoseAddressRefusesLosesItsEvidenceAtOnce() throws Exception {
        // A rule that rejects, added while the owner lives: its refusals no longer say anything about its death.
        seenAcceptingOnce();
        clock.tick(GoneOwners.RETRY);
        probe.always(OWNER, REFUSED);
        gone.learn(OWNER, FIRST);

        assertFalse(gone.seenAccepting(OWNER, FIRST));
        assertTrue(gone.gone(OWNER, FIRST).isEmpty());
    }

    @Test
    void whatHasAgedOutIsForgottenSoThatManyInstancesOverTimeTakeNoMoreMemory() {
        for (int i = 0; i < 1000; i++) {
            probe.then(OWNER, i % 2 == 0 ? ACCEPTED : TIMEOUT);
            gone.learn(OWNER, i + "-0a0b0c0d@worker-3:5c3e1a7f:4026531840");
            gone.canJudge(new NodeId("10.1." + i / 256 + "." + i % 256, 7700), FIRST, "worker-3:5c3e1a7f:4026531840");
        }
        assertTrue(gone.remembered() >= 2000, "remembered: " + gone.remembered());

        clock.tick(GoneOwners.EVIDENCE_AGE);
        probe.then(OWNER, ACCEPTED);
        gone.learn(OWNER, NEXT);

        assertEquals(1, gone.remembered(), "only the instance just learnt");
        assertTrue(gone.seenAccepting(OWNER, NEXT));
    }

    @Test
    void offNeverProbes() throws Exception {
        GoneOwners.OFF.learn(OWNER, FIRST);
        assertTrue(GoneOwners.OFF.gone(OWNER, FIRST).isEmpty());
    }

    @Test
    void theConnectTimeoutIsAQuarterHeartbeatBetween50And250Ms() {
        assertEquals(Duration.ofMillis(50), GoneOwners.connectTimeout(Duration.ofMillis(100)));
        assertEquals(Duration.ofMillis(125), GoneOwners.connectTimeout(Duration.ofMillis(500)));
        assertEquals(Duration.ofMillis(250), GoneOwners.connectTimeout(Duration.ofSeconds(3)));
    }
}
